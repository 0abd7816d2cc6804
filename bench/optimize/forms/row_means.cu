// Row means of a matrix of doubles, one thread per row, each row's sum
// accumulated in its output element, then divided.
#include "bench_common.h"

__global__ void row_means(const double *x, double *y, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  y[r] = 0.0;
  for (int j = 0; j < n; j++)
    y[r] += x[(size_t)r * n + j];
  y[r] /= n;
}

int main(int argc, char **argv) {
  const int rows = 8192, n = 512;
  auto xf = bench::random_floats((size_t)rows * n, 141);
  std::vector<double> x(xf.begin(), xf.end());
  double *dx = bench::to_device(x), *dy = bench::device_zeros<double>(rows);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { row_means<<<(rows + 255) / 256, 256>>>(dx, dy, rows, n); });
  std::vector<double> got = bench::to_host(dy, rows);
  bool ok = true;
  for (int r = 0; r < rows && ok; ++r) {
    double s = 0;
    for (int j = 0; j < n; ++j)
      s += x[(size_t)r * n + j];
    ok = std::fabs(got[r] - s / n) <= 1e-12 * (1 + std::fabs(s));
    if (!ok) std::fprintf(stderr, "y[%d]: got %g, want %g\n", r, got[r], s / n);
  }
  return bench::report("row_means", ok, ms, 1.0 * rows * n, 8.0 * rows * n);
}
