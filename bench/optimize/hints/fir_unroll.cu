// A 1-D FIR filter of 25 taps with the tap loop under `#pragma unroll`: one
// thread per output, the taps and the input re-read from global memory.
#include "bench_common.h"

__global__ void fir_unroll(const float *in, const float *taps, float *out, int n, int ntaps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
#pragma unroll
  for (int t = 0; t < ntaps; ++t) {
    int j = i + t - ntaps / 2;
    if (j >= 0 && j < n) acc += taps[t] * in[j];
  }
  out[i] = acc;
}

int main(int argc, char **argv) {
  const int n = 1 << 22, ntaps = 25;
  auto x = bench::random_floats(n, 72), w = bench::random_floats(ntaps, 73);
  float *dx = bench::to_device(x), *dw = bench::to_device(w), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { fir_unroll<<<(n + 255) / 256, 256>>>(dx, dw, dy, n, ntaps); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) {
    double acc = 0;
    for (int t = 0; t < ntaps; ++t) {
      int j = i + t - ntaps / 2;
      if (j >= 0 && j < n) acc += (double)w[t] * x[j];
    }
    want[i] = acc;
  }
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-4, 1e-5);
  return bench::report("fir_unroll", ok, ms, 2.0 * ntaps * n, 8.0 * n);
}
