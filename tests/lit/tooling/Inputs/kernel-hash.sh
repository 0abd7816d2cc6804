#!/bin/sh
# kernel-hash.sh <kernel> <kbcc> explain ...: prints the hash of <kernel> only.
kernel="$1"
shift
"$@" | sed -n "/^kernel $kernel\$/,/^  hash:/p" | sed -n 's/^  hash: //p'
