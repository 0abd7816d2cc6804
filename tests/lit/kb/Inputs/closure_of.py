#!/usr/bin/env python3
"""closure_of.py REGISTRY.json NAME: the "closure" of the registry entry of
kernel NAME (from `kbcc cache list --registry --json`), or "(none)"."""
import json
import sys

entries = [e for e in json.load(open(sys.argv[1])) if e["qualified_name"] == sys.argv[2]]
if not entries:
    sys.exit("closure_of.py: no registry entry for " + sys.argv[2])
print(entries[0].get("closure") or "(none)")
