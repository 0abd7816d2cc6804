// y = L x for a lower-triangular matrix stored row-major in full, one thread
// per row: row i reads its first i + 1 entries.
#include "bench_common.h"

__global__ void trmv_lower(const float *L, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.f;
    for (int k = 0; k <= i; ++k)
      s += L[(size_t)i * n + k] * x[k];
    y[i] = s;
  }
}

int main(int argc, char **argv) {
  const int n = 8192;
  auto L = bench::random_floats((size_t)n * n, 511), x = bench::random_floats(n, 512);
  float *dL = bench::to_device(L), *dx = bench::to_device(x), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { trmv_lower<<<(n + 255) / 256, 256>>>(dL, dx, dy, n); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int k = 0; k <= i; ++k)
      s += (double)L[(size_t)i * n + k] * x[k];
    want[i] = s;
  }
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-3, 1e-3);
  double half = 0.5 * (double)n * (n + 1);
  return bench::report("trmv_lower", ok, ms, 2.0 * half, 4.0 * (half + 2.0 * n));
}
