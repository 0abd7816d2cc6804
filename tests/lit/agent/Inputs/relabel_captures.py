#!/usr/bin/env python3
"""relabel_captures.py CAPTURES_DIR ARCH [--drop-module] [--forget-outputs]

Relabels every capture manifest under CAPTURES_DIR/launches as recorded on an
ARCH GPU, as a new GPU generation sees captures from an older one.
--drop-module removes the captured module, so a replay can only run through
a cubin recompiled for the local GPU (a real older module would not load).
--forget-outputs records every buffer as unchanged by the launch, so no
correct build of the kernel reproduces the capture."""
import json
import os
import sys

captures, arch = sys.argv[1:3]
flags = set(sys.argv[3:])
launches = os.path.join(captures, "launches")
count = 0
for name in sorted(os.listdir(launches)):
    if not name.endswith(".json"):
        continue
    path = os.path.join(launches, name)
    m = json.load(open(path))
    m["arch"] = arch
    m["gpu_name"] = "a %s GPU" % arch
    if "--drop-module" in flags:
        m["module"] = ""
    if "--forget-outputs" in flags:
        for b in m["buffers"]:
            b["after_kind"] = "unchanged"
            b.pop("after", None)
            b.pop("ranges", None)
    with open(path, "w") as f:
        json.dump(m, f, indent=1)
        f.write("\n")
    count += 1
print("relabelled %d capture(s) as %s" % (count, arch))
