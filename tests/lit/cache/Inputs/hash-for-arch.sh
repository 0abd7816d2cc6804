#!/bin/sh
# hash-for-arch.sh ARCH: reads `kbcc cache list --registry` on stdin and
# prints the kernel hash recorded for ARCH (hashes differ per arch).
awk -v arch="$1" 'index("," $3 ",", "," arch ",") { print $1; exit }'
