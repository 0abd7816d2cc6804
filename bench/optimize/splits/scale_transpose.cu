// A scaled transpose written inline: the element count passed apart from
// the width, the column and row read as i % cols and i / cols in the store.
#include "bench_common.h"

__global__ void scale_transpose(const float *in, float *out, float alpha, int n, int rows, int cols) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) out[(i % cols) * rows + i / cols] = alpha * in[i];
}

int main(int argc, char **argv) {
  const int rows = 2048, cols = 6144, n = rows * cols;
  auto x = bench::random_floats(n, 304);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { scale_transpose<<<(n + 511) / 512, 512>>>(dx, dy, 1.5f, n, rows, cols); });
  std::vector<double> want(n);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      want[(size_t)c * rows + r] = 1.5f * x[(size_t)r * cols + c];
  bool ok = bench::all_close(bench::to_host(dy, n), want, 0, 0);
  return bench::report("scale_transpose", ok, ms, 1.0 * n, 8.0 * n);
}
