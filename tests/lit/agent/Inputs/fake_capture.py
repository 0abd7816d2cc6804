#!/usr/bin/env python3
"""fake_capture.py REGISTRY.json CAPTURES_DIR NAME BUILT_ARCH RECORDED_ARCH

Writes a capture manifest (no buffers) for the registry kernel NAME as built
for BUILT_ARCH, labelled as recorded on a RECORDED_ARCH GPU: what `kbcc
capture` writes, minus the device buffers, for tests without a GPU. The
registry comes from `kbcc cache list --registry --json`. Prints the id."""
import hashlib
import json
import os
import sys

registry, captures, name, built, recorded = sys.argv[1:6]
entries = [e for e in json.load(open(registry)) if e["qualified_name"] == name and built in e["archs"]]
if len(entries) != 1:
    sys.exit("fake_capture.py: %d registry entries for %s on %s" % (len(entries), name, built))
e = entries[0]
manifest = {
    "format": 1, "kernel": e["mangled_names"][0], "kernel_hash": e["hash"], "arch": recorded,
    "gpu_name": "a %s GPU" % recorded, "module": "", "api": "cuLaunchKernel",
    "grid": [4, 1, 1], "block": [256, 1, 1], "shared_mem": 0, "params": [], "param_bytes": "",
    "buffers": [], "pointers": [], "replayable": True, "reason": "", "command": "app",
    "created": "2025-01-01T00:00:00Z", "sequence": 0,
}
text = json.dumps(manifest, indent=1) + "\n"
ident = hashlib.md5(text.encode()).hexdigest()
os.makedirs(os.path.join(captures, "launches"), exist_ok=True)
with open(os.path.join(captures, "launches", ident + ".json"), "w") as f:
    f.write(text)
print(ident)
