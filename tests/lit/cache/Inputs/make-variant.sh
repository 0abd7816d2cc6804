#!/bin/sh
# make-variant.sh HASH ARCH MARK MEDIAN_US > file.json: a variant record whose
# source adds MARK (an integer) so that each variant compiles differently.
sed -e "s/@HASH@/$1/" -e "s/@ARCH@/$2/" -e "s/@MARK@/$3/" -e "s/@US@/$4/" "$(dirname "$0")/variant.json.in"
