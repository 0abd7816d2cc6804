// Naive 1-D convolution (33 taps, zero padded): weights and inputs re-read
// from global memory by every thread.
#include "bench_common.h"

__global__ void conv1d_naive(int n, int taps, const float *w, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int half = taps / 2;
  float acc = 0.0f;
  for (int t = 0; t < taps; ++t) {
    int j = i + t - half;
    if (j >= 0 && j < n) acc += w[t] * x[j];
  }
  y[i] = acc;
}

int main(int argc, char **argv) {
  const int n = 1 << 22, taps = 33;
  auto x = bench::random_floats(n, 16), w = bench::random_floats(taps, 17);
  float *dx = bench::to_device(x), *dw = bench::to_device(w), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { conv1d_naive<<<(n + 255) / 256, 256>>>(n, taps, dw, dx, dy); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) {
    double acc = 0;
    for (int t = 0; t < taps; ++t) {
      int j = i + t - taps / 2;
      if (j >= 0 && j < n) acc += (double)w[t] * x[j];
    }
    want[i] = acc;
  }
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-4, 1e-5);
  return bench::report("conv1d", ok, ms, 2.0 * taps * n, 8.0 * n);
}
