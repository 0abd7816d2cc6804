// Group-norm statistics: one thread per (image, group) walks the group's
// channels and every pixel of each, summing values and squares.
#include "bench_common.h"

__global__ void group_stats(const float *x, float *mean, float *rstd, int N, int C, int HW, int G, float eps) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < N * G) {
    int n = t / G, g = t % G, per = C / G;
    float s = 0.f, ss = 0.f;
    for (int c = g * per; c < (g + 1) * per; ++c)
      for (int p = 0; p < HW; ++p) {
        float v = x[((size_t)n * C + c) * HW + p];
        s += v;
        ss += v * v;
      }
    float cnt = (float)per * HW;
    float m = s / cnt;
    mean[t] = m;
    rstd[t] = rsqrtf(ss / cnt - m * m + eps);
  }
}

int main(int argc, char **argv) {
  const int N = 8, C = 256, HW = 32 * 32, G = 32;
  const float eps = 1e-5f;
  auto x = bench::random_floats((size_t)N * C * HW, 677, -1.f, 2.f);
  float *dx = bench::to_device(x), *dm = bench::device_zeros<float>(N * G), *dr = bench::device_zeros<float>(N * G);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { group_stats<<<(N * G + 127) / 128, 128>>>(dx, dm, dr, N, C, HW, G, eps); });
  std::vector<double> wm(N * G), wr(N * G);
  const int per = C / G;
  for (int t = 0; t < N * G; ++t) {
    int n = t / G, g = t % G;
    double s = 0, ss = 0;
    for (int c = g * per; c < (g + 1) * per; ++c)
      for (int p = 0; p < HW; ++p) {
        double v = x[((size_t)n * C + c) * HW + p];
        s += v;
        ss += v * v;
      }
    double cnt = (double)per * HW;
    wm[t] = s / cnt;
    wr[t] = 1.0 / std::sqrt(ss / cnt - wm[t] * wm[t] + eps);
  }
  bool ok = bench::all_close(bench::to_host(dm, N * G), wm, 1e-4, 1e-4) &&
            bench::all_close(bench::to_host(dr, N * G), wr, 1e-3, 1e-4);
  return bench::report("group_stats", ok, ms, 3.0 * N * C * HW, 4.0 * N * C * HW);
}
