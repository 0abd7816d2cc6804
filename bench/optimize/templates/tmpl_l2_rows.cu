// Rows scaled to unit L2 norm, from a kernel template over the element type
// (instantiated for float): one thread per row, a norm loop and a scaling
// loop.
#include "bench_common.h"

#include <cmath>

template <typename T>
__global__ void l2_rows(const T *x, T *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  T ss = T(0);
  for (int c = 0; c < cols; ++c)
    ss += x[(size_t)r * cols + c] * x[(size_t)r * cols + c];
  T inv = T(1) / sqrt(ss + T(1e-6));
  for (int c = 0; c < cols; ++c)
    y[(size_t)r * cols + c] = x[(size_t)r * cols + c] * inv;
}

int main(int argc, char **argv) {
  const int rows = 8192, cols = 1024;
  const size_t n = (size_t)rows * cols;
  auto x = bench::random_floats(n, 101);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { l2_rows<float><<<(rows + 127) / 128, 128>>>(dx, dy, rows, cols); });
  std::vector<double> want(n);
  for (int r = 0; r < rows; ++r) {
    double ss = 0;
    for (int c = 0; c < cols; ++c)
      ss += (double)x[(size_t)r * cols + c] * x[(size_t)r * cols + c];
    double inv = 1.0 / std::sqrt(ss + 1e-6);
    for (int c = 0; c < cols; ++c)
      want[(size_t)r * cols + c] = x[(size_t)r * cols + c] * inv;
  }
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-4, 1e-6);
  return bench::report("tmpl_l2_rows", ok, ms, 3.0 * n, 8.0 * n);
}
