// RMS normalisation of half-precision rows, one thread per row: the sum of
// squares in float, then every element scaled and stored as half.
#include "bench_common.h"

#include <cuda_fp16.h>

__global__ void half_rownorm(const __half *x, const __half *gamma, __half *y, int rows, int cols, float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float ss = 0.f;
    for (int c = 0; c < cols; ++c) {
      float v = __half2float(x[(size_t)r * cols + c]);
      ss += v * v;
    }
    float inv = rsqrtf(ss / cols + eps);
    for (int c = 0; c < cols; ++c)
      y[(size_t)r * cols + c] = __float2half(__half2float(x[(size_t)r * cols + c]) * inv * __half2float(gamma[c]));
  }
}

int main(int argc, char **argv) {
  const int rows = 16384, cols = 1024;
  auto xf = bench::random_floats((size_t)rows * cols, 621), gf = bench::random_floats(cols, 622, 0.5f, 1.5f);
  std::vector<__half> x(xf.size()), g(cols);
  for (size_t i = 0; i < xf.size(); ++i)
    x[i] = __float2half(xf[i]);
  for (int c = 0; c < cols; ++c)
    g[c] = __float2half(gf[c]);
  __half *dx = bench::to_device(x), *dg = bench::to_device(g), *dy = bench::device_zeros<__half>(x.size());
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { half_rownorm<<<(rows + 127) / 128, 128>>>(dx, dg, dy, rows, cols, 1e-6f); });
  auto got = bench::to_host(dy, x.size());
  std::vector<float> gotf(got.size());
  for (size_t i = 0; i < got.size(); ++i)
    gotf[i] = __half2float(got[i]);
  std::vector<double> want(x.size());
  for (int r = 0; r < rows; ++r) {
    double ss = 0;
    for (int c = 0; c < cols; ++c) {
      double v = __half2float(x[(size_t)r * cols + c]);
      ss += v * v;
    }
    double inv = 1.0 / std::sqrt(ss / cols + 1e-6);
    for (int c = 0; c < cols; ++c)
      want[(size_t)r * cols + c] = __half2float(x[(size_t)r * cols + c]) * inv * __half2float(g[c]);
  }
  bool ok = bench::all_close(gotf, want, 4e-3, 1e-3);
  return bench::report("half_rownorm", ok, ms, 4.0 * rows * cols, 2.0 * 2.0 * rows * cols);
}
