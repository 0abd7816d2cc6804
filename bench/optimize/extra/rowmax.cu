// Naive row-wise maximum: one thread per row (strided reads).
#include "bench_common.h"

__global__ void row_max(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = -INFINITY;
    for (int c = 0; c < cols; ++c)
      m = fmaxf(m, x[(size_t)r * cols + c]);
    y[r] = m;
  }
}

int main(int argc, char **argv) {
  const int rows = 8192, cols = 1024;
  auto x = bench::random_floats((size_t)rows * cols, 41);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>(rows);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { row_max<<<(rows + 255) / 256, 256>>>(rows, cols, dx, dy); });
  std::vector<double> want(rows);
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY;
    for (int c = 0; c < cols; ++c)
      m = std::max(m, (double)x[(size_t)r * cols + c]);
    want[r] = m;
  }
  bool ok = bench::all_close(bench::to_host(dy, rows), want, 0, 0);
  return bench::report("rowmax", ok, ms, 1.0 * rows * cols, 4.0 * rows * cols);
}
