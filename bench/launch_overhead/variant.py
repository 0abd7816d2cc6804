#!/usr/bin/env python3
"""variant.py HASH ARCH PRECONDITION > variant.json: a launch-changing variant
of launch.cu's tiny() (two threads per item's work halved: 128-thread blocks
covering the same 256 items), under PRECONDITION."""
import json
import sys

source = """__global__ void tiny(int n, float *p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 1.0f;
}
"""
print(json.dumps({
    "format": "kbcc-variant", "version": 2, "kernel_hash": sys.argv[1], "arch": sys.argv[2], "qualified_name": "tiny",
    "source": source,
    "launch": {"grid": ["ceil_div(grid.x * block.x, 128)", "1", "1"], "block": ["128", "1", "1"], "shared": "0",
               "preconditions": ["grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1",
                                 "(grid.x * block.x) % 128 == 0 || n <= grid.x * block.x", "aligned(p, 16)",
                                 sys.argv[3]]},
    "numerics": "exact", "toolchain": "bench", "provenance": {"optimizations": ["block_size_tuning"]},
    "validation": {"captures_checked": 1, "max_error": 0, "tolerance": 0, "sanitizer": "clean"},
    "timing": {"baseline_median_us": 2, "variant_median_us": 1, "runs": 1}}))
