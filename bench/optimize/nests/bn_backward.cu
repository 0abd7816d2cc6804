// Batch-norm backward's reductions: one thread per channel of NCHW walks the
// batch, pointing at its image's plane first, and sums the gradient and the
// gradient times the normalised input over the pixels.
#include "bench_common.h"

__global__ void bn_backward(const float *dy, const float *x, const float *mean, const float *rstd, float *dbeta,
                            float *dgamma, int N, int C, int HW) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < C) {
    float db = 0.f, dg = 0.f;
    for (int n = 0; n < N; ++n) {
      const float *g = dy + ((size_t)n * C + c) * HW;
      const float *v = x + ((size_t)n * C + c) * HW;
      for (int p = 0; p < HW; ++p) {
        db += g[p];
        dg += g[p] * (v[p] - mean[c]) * rstd[c];
      }
    }
    dbeta[c] = db;
    dgamma[c] = dg;
  }
}

int main(int argc, char **argv) {
  const int N = 32, C = 64, HW = 56 * 56;
  const size_t n = (size_t)N * C * HW;
  auto dy = bench::random_floats(n, 681, -1.f, 1.f), x = bench::random_floats(n, 683, -2.f, 2.f);
  auto mean = bench::random_floats(C, 685, -0.1f, 0.1f), rstd = bench::random_floats(C, 687, 0.5f, 1.5f);
  float *ddy = bench::to_device(dy), *dx = bench::to_device(x), *dm = bench::to_device(mean),
        *dr = bench::to_device(rstd), *db = bench::device_zeros<float>(C), *dg = bench::device_zeros<float>(C);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { bn_backward<<<(C + 63) / 64, 64>>>(ddy, dx, dm, dr, db, dg, N, C, HW); });
  std::vector<double> wb(C), wg(C);
  for (int c = 0; c < C; ++c) {
    double sb = 0, sg = 0;
    for (int i = 0; i < N; ++i)
      for (int p = 0; p < HW; ++p) {
        size_t at = ((size_t)i * C + c) * HW + p;
        sb += dy[at];
        sg += (double)dy[at] * (x[at] - mean[c]) * rstd[c];
      }
    wb[c] = sb;
    wg[c] = sg;
  }
  bool ok = bench::all_close(bench::to_host(db, C), wb, 1e-3, 1e-2) &&
            bench::all_close(bench::to_host(dg, C), wg, 1e-3, 1e-2);
  return bench::report("bn_backward", ok, ms, 4.0 * n, 8.0 * n);
}
