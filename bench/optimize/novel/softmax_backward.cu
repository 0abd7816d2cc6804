// The gradient of a row softmax, dx = y * (dy - sum(dy * y)), one thread per
// row: a dot product of the row with its gradient, then the row's update.
#include "bench_common.h"

__global__ void softmax_backward(const float *y, const float *dy, float *dx, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *yr = y + (size_t)r * cols, *gr = dy + (size_t)r * cols;
  float dot = 0.f;
  for (int c = 0; c < cols; ++c)
    dot += yr[c] * gr[c];
  for (int c = 0; c < cols; ++c)
    dx[(size_t)r * cols + c] = yr[c] * (gr[c] - dot);
}

int main(int argc, char **argv) {
  const int rows = 16384, cols = 512;
  auto y = bench::random_floats((size_t)rows * cols, 501, 0.f, 1.f),
       dy = bench::random_floats((size_t)rows * cols, 502);
  float *dyv = bench::to_device(y), *dg = bench::to_device(dy), *dx = bench::device_zeros<float>((size_t)rows * cols);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { softmax_backward<<<(rows + 127) / 128, 128>>>(dyv, dg, dx, rows, cols); });
  std::vector<double> want((size_t)rows * cols);
  for (int r = 0; r < rows; ++r) {
    double dot = 0;
    for (int c = 0; c < cols; ++c)
      dot += (double)y[(size_t)r * cols + c] * dy[(size_t)r * cols + c];
    for (int c = 0; c < cols; ++c)
      want[(size_t)r * cols + c] = y[(size_t)r * cols + c] * (dy[(size_t)r * cols + c] - dot);
  }
  bool ok = bench::all_close(bench::to_host(dx, want.size()), want, 1e-3, 1e-4);
  return bench::report("softmax_backward", ok, ms, 4.0 * rows * cols, 12.0 * rows * cols);
}
