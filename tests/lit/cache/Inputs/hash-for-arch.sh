#!/bin/sh
# hash-for-arch.sh ARCH: reads `kbcc cache list --registry` on stdin and
# prints the kernel hash recorded for ARCH (hashes differ per arch). The
# arch list follows the qualified name, which may hold a space
# ("(anonymous namespace)").
awk -v arch="$1" '{ for (i = 3; i <= NF; i++) if (index("," $i ",", "," arch ",")) { print $1; exit } }'
