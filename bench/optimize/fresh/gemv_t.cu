// y = Aᵀ x in double for a row-major matrix, one thread per column.
#include "bench_common.h"

__global__ void gemv_t(int m, int n, const double *A, const double *x, double *y) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < n) {
    double acc = 0.0;
    for (int r = 0; r < m; ++r)
      acc += A[r * n + col] * x[r];
    y[col] = acc;
  }
}

int main(int argc, char **argv) {
  const int m = 8192, n = 2048;
  auto af = bench::random_floats((size_t)m * n, 331), xf = bench::random_floats(m, 332);
  std::vector<double> a(af.begin(), af.end()), x(xf.begin(), xf.end());
  double *da = bench::to_device(a), *dx = bench::to_device(x), *dy = bench::device_zeros<double>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { gemv_t<<<(n + 255) / 256, 256>>>(m, n, da, dx, dy); });
  std::vector<double> want(n, 0.0);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c)
      want[c] += a[(size_t)r * n + c] * x[r];
  std::vector<double> got = bench::to_host(dy, n);
  bool ok = bench::all_close(std::vector<float>(got.begin(), got.end()), want, 1e-5, 1e-5);
  return bench::report("gemv_t", ok, ms, 2.0 * m * n, 8.0 * m * n);
}
