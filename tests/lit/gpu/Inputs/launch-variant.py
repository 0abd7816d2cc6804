#!/usr/bin/env python3
"""launch-variant.py HASH ARCH SOURCE [PRECONDITION...] > variant.json

A launch-changing variant record (format version 2) of a thread-per-row
kernel: SOURCE's kernel with eight rows per 256-thread block, the grid
recomputed from the original's threads, under the given preconditions."""
import json
import sys

kernel_hash, arch, source = sys.argv[1:4]
preconditions = ["grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1",
                 "(grid.x * block.x) % 8 == 0 || rows <= grid.x * block.x"] + sys.argv[4:]
record = {
    "format": "kbcc-variant", "version": 2, "kernel_hash": kernel_hash, "arch": arch,
    "qualified_name": "row_sum", "source": open(source).read(),
    "launch": {"grid": ["ceil_div(grid.x * block.x, 8)", "1", "1"], "block": ["256", "1", "1"], "shared": "0",
               "preconditions": preconditions},
    "numerics": "reassociates", "toolchain": "test",
    "provenance": {"optimizations": ["split_loop_across_warp"], "contributor": "lit"},
    "validation": {"captures_checked": 1, "max_error": 0, "tolerance": 1e-5, "sanitizer": "clean"},
    "timing": {"baseline_median_us": 10, "baseline_spread_us": 0.1, "variant_median_us": 2, "variant_spread_us": 0.1,
               "runs": 20, "gpu_name": "lit GPU", "driver": "0"},
}
print(json.dumps(record))
