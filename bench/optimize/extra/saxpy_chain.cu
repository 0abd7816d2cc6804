// A chain of dependent axpy steps per element (v = a[k] * v + b[k]): one
// thread per element, small blocks.
#include "bench_common.h"

__global__ void saxpy_chain(int n, int steps, const float *a, const float *b, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    for (int k = 0; k < steps; ++k)
      v = a[k] * v + b[k];
    y[i] = v;
  }
}

int main(int argc, char **argv) {
  const int n = 1 << 24, steps = 8;
  auto a = bench::random_floats(steps, 49, 0.5f, 1.0f), b = bench::random_floats(steps, 50);
  auto x = bench::random_floats(n, 51);
  float *da = bench::to_device(a), *db = bench::to_device(b), *dx = bench::to_device(x);
  float *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { saxpy_chain<<<(n + 63) / 64, 64>>>(n, steps, da, db, dx, dy); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) {
    float v = x[i];
    for (int k = 0; k < steps; ++k)
      v = a[k] * v + b[k];
    want[i] = v;
  }
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-5, 1e-6);
  return bench::report("saxpy_chain", ok, ms, 2.0 * n * steps, 8.0 * n);
}
