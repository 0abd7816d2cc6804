// Softmax down each column of a row-major matrix, one thread per column:
// a maximum, a sum of exponentials, then the normalised column.
#include "bench_common.h"

__global__ void col_softmax(const float *x, float *y, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float mx = -INFINITY;
  for (int r = 0; r < rows; r++)
    mx = fmaxf(mx, x[r * cols + c]);
  float sum = 0;
  for (int r = 0; r < rows; r++)
    sum += expf(x[r * cols + c] - mx);
  for (int r = 0; r < rows; r++)
    y[r * cols + c] = expf(x[r * cols + c] - mx) / sum;
}

int main(int argc, char **argv) {
  const int rows = 4096, cols = 2048;
  auto x = bench::random_floats((size_t)rows * cols, 321, -4.0f, 4.0f);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>((size_t)rows * cols);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { col_softmax<<<(cols + 255) / 256, 256>>>(dx, dy, rows, cols); });
  std::vector<double> want((size_t)rows * cols);
  for (int c = 0; c < cols; ++c) {
    double mx = -INFINITY, sum = 0;
    for (int r = 0; r < rows; ++r)
      mx = std::max(mx, (double)x[(size_t)r * cols + c]);
    for (int r = 0; r < rows; ++r)
      sum += std::exp(x[(size_t)r * cols + c] - mx);
    for (int r = 0; r < rows; ++r)
      want[(size_t)r * cols + c] = std::exp(x[(size_t)r * cols + c] - mx) / sum;
  }
  bool ok = bench::all_close(bench::to_host(dy, want.size()), want, 1e-4, 1e-7);
  return bench::report("col_softmax", ok, ms, 5.0 * rows * cols, 8.0 * rows * cols);
}
