#!/usr/bin/env python3
"""has-immediate.py FILE HEX...: prints, for each 32-bit value, whether its
little-endian bytes occur in FILE (a cubin): "0x5eed80 yes" or "0x5eed80 no"."""
import struct
import sys

data = open(sys.argv[1], "rb").read()
for value in sys.argv[2:]:
    found = struct.pack("<I", int(value, 16)) in data
    print(value, "yes" if found else "no")
