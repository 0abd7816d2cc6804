// Row mean and variance by Welford's online update, one thread per row: each
// step divides by the count so far, which no reassociation preserves.
#include "bench_common.h"

__global__ void welford_rows(const float *x, float *mean, float *var, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = 0.f, m2 = 0.f;
    for (int c = 0; c < cols; ++c) {
      float v = x[(size_t)r * cols + c];
      float d = v - m;
      m += d / (c + 1);
      m2 += d * (v - m);
    }
    mean[r] = m;
    var[r] = m2 / cols;
  }
}

int main(int argc, char **argv) {
  const int rows = 32768, cols = 256;
  auto x = bench::random_floats((size_t)rows * cols, 551);
  float *dx = bench::to_device(x), *dm = bench::device_zeros<float>(rows), *dv = bench::device_zeros<float>(rows);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { welford_rows<<<(rows + 255) / 256, 256>>>(dx, dm, dv, rows, cols); });
  std::vector<double> wm(rows), wv(rows);
  for (int r = 0; r < rows; ++r) {
    double m = 0, q = 0;
    for (int c = 0; c < cols; ++c)
      m += x[(size_t)r * cols + c];
    m /= cols;
    for (int c = 0; c < cols; ++c)
      q += (x[(size_t)r * cols + c] - m) * (x[(size_t)r * cols + c] - m);
    wm[r] = m;
    wv[r] = q / cols;
  }
  bool ok = bench::all_close(bench::to_host(dm, rows), wm, 1e-3, 1e-4) &&
            bench::all_close(bench::to_host(dv, rows), wv, 1e-3, 1e-4);
  return bench::report("welford_rows", ok, ms, 5.0 * rows * cols, 4.0 * ((double)rows * cols + 2.0 * rows));
}
