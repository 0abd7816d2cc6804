#!/bin/sh
# make-launch-variant.sh HASH ARCH > file.json: a launch-changing variant of
# rows(): eight rows per 256-thread block (a warp per row), with preconditions.
cat <<JSON
{"format":"kbcc-variant","version":2,"kernel_hash":"$1","arch":"$2","qualified_name":"rows",
 "source":"__global__ void rows(int n, const float *x, float *y) {\n  int r = blockIdx.x * 8 + threadIdx.x / 32;\n  if (r < n && threadIdx.x % 32 == 0) y[r] = 2.0f * x[r];\n}\n",
 "launch":{"grid":["ceil_div(grid.x * block.x, 8)","1","1"],"block":["256","1","1"],"shared":"0",
           "preconditions":["n <= grid.x * block.x","grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1",
                            "aligned(x, 16)"]},
 "numerics":"exact",
 "toolchain":"test","provenance":{"optimizations":["split_loop_across_warp"],"contributor":"lit"},
 "validation":{"captures_checked":3,"max_error":0,"tolerance":0,"sanitizer":"clean"},
 "timing":{"baseline_median_us":10,"baseline_spread_us":0.2,"variant_median_us":2,"variant_spread_us":0.1,"runs":20,
           "gpu_name":"lit GPU","driver":"0"}}
JSON
