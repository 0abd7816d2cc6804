#!/bin/sh
# make-template-variants.sh FLOAT_HASH DOUBLE_HASH ARCH DIR: two variants of
# the instances of ops::trows, each an explicit specialization: a
# launch-changing one of trows<float, 2> (a warp per eight rows) in
# DIR/variant-float.json and a same-launch one of trows<double, 2> in
# DIR/variant-double.json.
common='"numerics":"exact","toolchain":"test","provenance":{"optimizations":["split_loop_across_warp"],"contributor":"lit"},
 "validation":{"captures_checked":3,"max_error":0,"tolerance":0,"sanitizer":"clean"},
 "timing":{"baseline_median_us":10,"baseline_spread_us":0.2,"variant_median_us":2,"variant_spread_us":0.1,"runs":20,
           "gpu_name":"lit GPU","driver":"0"}}'
cat > "$4/variant-float.json" <<JSON
{"format":"kbcc-variant","version":2,"kernel_hash":"$1","arch":"$3","qualified_name":"ops::trows<float, 2>",
 "source":"template <> __global__ void trows<float, 2>(int n, const float *x, float *y) {\n  int r = blockIdx.x * 8 + threadIdx.x / 32;\n  if (r < n && threadIdx.x % 32 == 0) y[r] = float(2) * x[r];\n}\n",
 "launch":{"grid":["ceil_div(grid.x * block.x, 8)","1","1"],"block":["256","1","1"],"shared":"0",
           "preconditions":["n <= grid.x * block.x","grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1"]},
 $common
JSON
cat > "$4/variant-double.json" <<JSON
{"format":"kbcc-variant","version":2,"kernel_hash":"$2","arch":"$3","qualified_name":"ops::trows<double, 2>",
 "source":"template <> __global__ void __launch_bounds__(128) trows<double, 2>(int n, const double *x, double *y) {\n  int r = blockIdx.x * blockDim.x + threadIdx.x;\n  if (r < n) y[r] = double(2) * x[r];\n}\n",
 $common
JSON
