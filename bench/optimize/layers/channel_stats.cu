// Batch-norm statistics of an NCHW activation: one thread per channel walks
// every image of the batch and every pixel, summing values and squares.
#include "bench_common.h"

__global__ void channel_stats(const float *x, float *mean, float *var, int N, int C, int HW) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < C) {
    float s = 0.f, ss = 0.f;
    for (int n = 0; n < N; ++n)
      for (int p = 0; p < HW; ++p) {
        float v = x[((size_t)n * C + c) * HW + p];
        s += v;
        ss += v * v;
      }
    float cnt = (float)N * HW;
    float m = s / cnt;
    mean[c] = m;
    var[c] = ss / cnt - m * m;
  }
}

int main(int argc, char **argv) {
  const int N = 32, C = 256, HW = 28 * 28;
  auto x = bench::random_floats((size_t)N * C * HW, 641, 0.f, 2.f);
  float *dx = bench::to_device(x), *dm = bench::device_zeros<float>(C), *dv = bench::device_zeros<float>(C);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { channel_stats<<<(C + 63) / 64, 64>>>(dx, dm, dv, N, C, HW); });
  std::vector<double> wm(C), wv(C);
  for (int c = 0; c < C; ++c) {
    double s = 0, ss = 0;
    for (int n = 0; n < N; ++n)
      for (int p = 0; p < HW; ++p) {
        double v = x[((size_t)n * C + c) * HW + p];
        s += v;
        ss += v * v;
      }
    double cnt = (double)N * HW;
    wm[c] = s / cnt;
    wv[c] = ss / cnt - wm[c] * wm[c];
  }
  bool ok = bench::all_close(bench::to_host(dm, C), wm, 1e-4, 1e-4) &&
            bench::all_close(bench::to_host(dv, C), wv, 1e-3, 1e-4);
  return bench::report("channel_stats", ok, ms, 3.0 * N * C * HW, 4.0 * N * C * HW);
}
