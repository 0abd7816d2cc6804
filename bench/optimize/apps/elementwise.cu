// Naive elementwise kernel: z = a*x + b*y, one element per thread, 64-thread blocks.
#include "bench_common.h"

__global__ void elementwise_axpby(int n, float a, const float *x, float b, const float *y, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + b * y[i];
}

int main(int argc, char **argv) {
  const int n = 1 << 22;
  auto x = bench::random_floats(n, 1), y = bench::random_floats(n, 2);
  float *dx = bench::to_device(x), *dy = bench::to_device(y), *dz = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { elementwise_axpby<<<(n + 63) / 64, 64>>>(n, 1.5f, dx, -0.5f, dy, dz); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i)
    want[i] = 1.5 * x[i] - 0.5 * y[i];
  bool ok = bench::all_close(bench::to_host(dz, n), want, 1e-5, 1e-6);
  return bench::report("elementwise", ok, ms, 3.0 * n, 12.0 * n);
}
