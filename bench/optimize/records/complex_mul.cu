// Pointwise product of two complex signals stored as interleaved (re, im)
// floats, as a spectral convolution multiplies two FFTs; one thread per sample.
#include "bench_common.h"

__global__ void complex_mul(const float *a, const float *b, float *c, int n, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = b[2 * i + 1];
    c[2 * i] = (ar * br - ai * bi) * scale;
    c[2 * i + 1] = (ar * bi + ai * br) * scale;
  }
}

int main(int argc, char **argv) {
  const int n = 1 << 23;
  auto a = bench::random_floats(2 * (size_t)n, 671), b = bench::random_floats(2 * (size_t)n, 672);
  float *da = bench::to_device(a), *db = bench::to_device(b), *dc = bench::device_zeros<float>(2 * (size_t)n);
  const float scale = 1.0f / 1024;
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { complex_mul<<<(n + 255) / 256, 256>>>(da, db, dc, n, scale); });
  std::vector<double> want(2 * (size_t)n);
  for (int i = 0; i < n; ++i) {
    double ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = b[2 * i + 1];
    want[2 * i] = (ar * br - ai * bi) * scale;
    want[2 * i + 1] = (ar * bi + ai * br) * scale;
  }
  bool ok = bench::all_close(bench::to_host(dc, want.size()), want, 1e-5, 1e-8);
  return bench::report("complex_mul", ok, ms, 8.0 * n, 4.0 * 6.0 * n);
}
