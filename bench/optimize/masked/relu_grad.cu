// A ReLU's backward pass in place, as deep-learning code writes it: the
// gradient is zeroed where the activation is not positive and left alone
// elsewhere, a store behind a data-dependent branch.
#include "bench_common.h"

__global__ void relu_grad(int n, const float *y, float *dy) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (y[i] <= 0.0f) dy[i] = 0.0f;
  }
}

int main(int argc, char **argv) {
  const int n = 1 << 25;
  auto y = bench::random_floats(n, 81), g = bench::random_floats(n, 82);
  float *dyv = bench::to_device(y), *dg = bench::to_device(g);
  // Zeroing is idempotent: every run computes the same gradient.
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { relu_grad<<<(n + 255) / 256, 256>>>(n, dyv, dg); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i)
    want[i] = y[i] <= 0.0f ? 0.0 : g[i];
  bool ok = bench::all_close(bench::to_host(dg, n), want, 0, 0);
  return bench::report("relu_grad", ok, ms, 0, 8.0 * n);
}
