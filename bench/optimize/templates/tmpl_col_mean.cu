// Column means of a row-major matrix, from a kernel template over the
// element and the accumulator types (float elements, double sums): one
// thread per column walking down the rows.
#include "bench_common.h"

template <typename T, typename Acc>
__global__ void col_mean(const T *x, T *mean, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  Acc s = 0;
  for (int r = 0; r < rows; ++r)
    s += static_cast<Acc>(x[(size_t)r * cols + c]);
  mean[c] = static_cast<T>(s / rows);
}

int main(int argc, char **argv) {
  const int rows = 4096, cols = 2048;
  const size_t n = (size_t)rows * cols;
  auto x = bench::random_floats(n, 102);
  float *dx = bench::to_device(x), *dm = bench::device_zeros<float>(cols);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { col_mean<float, double><<<(cols + 255) / 256, 256>>>(dx, dm, rows, cols); });
  std::vector<double> want(cols, 0.0);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      want[c] += x[(size_t)r * cols + c];
  for (double &w : want)
    w /= rows;
  bool ok = bench::all_close(bench::to_host(dm, cols), want, 1e-5, 1e-7);
  return bench::report("tmpl_col_mean", ok, ms, 1.0 * n, 4.0 * n);
}
