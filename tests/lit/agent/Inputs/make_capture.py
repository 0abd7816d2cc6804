#!/usr/bin/env python3
"""Writes a capture manifest (and optionally a capture session) the way the
capture library does, for tests of what kbcc does with captures on machines
without a GPU.

  make_capture.py manifest DIR ID KERNEL ARCH [NOT_REPLAYABLE_REASON]
  make_capture.py session DIR NAME KERNEL LAUNCHES SKIPPED_CAP SMALLEST CAP_NEEDED
"""
import json
import os
import sys


def manifest(directory, ident, kernel, arch, reason=""):
    m = {"format": 1, "kernel": kernel, "kernel_hash": "", "arch": arch, "gpu_name": "Test GPU", "module": "",
         "api": "cuLaunchKernel", "grid": [1, 1, 1], "block": [32, 1, 1], "shared_mem": 0, "params": [],
         "param_bytes": "", "buffers": [], "pointers": [], "replayable": not reason, "reason": reason,
         "command": "app", "created": "2026-01-01T00:00:00Z", "sequence": 1}
    os.makedirs(os.path.join(directory, "launches"), exist_ok=True)
    with open(os.path.join(directory, "launches", ident + ".json"), "w") as f:
        json.dump(m, f)


def session(directory, name, kernel, launches, skipped_cap, smallest, cap_needed):
    s = {"counts": {"launches": int(launches), "skipped_cap": int(skipped_cap)}, "ids": [], "used": 0,
         "size_cap": 1 << 30,
         "kernels": {kernel: {"launches": int(launches), "captured": 0, "replayable": 0, "skipped_limit": 0,
                              "skipped_size": 0, "skipped_cap": int(skipped_cap), "skipped_other": 0,
                              "smallest_capped": int(smallest), "cap_needed": int(cap_needed),
                              "not_replayable": ""}}}
    os.makedirs(os.path.join(directory, "sessions"), exist_ok=True)
    with open(os.path.join(directory, "sessions", name + ".json"), "w") as f:
        json.dump(s, f)


if __name__ == "__main__":
    {"manifest": manifest, "session": session}[sys.argv[1]](*sys.argv[2:])
