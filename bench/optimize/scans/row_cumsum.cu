// Naive row-wise cumulative sum: one thread per row, the running sum stored
// at every element.
#include "bench_common.h"

__global__ void row_cumsum(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) {
      s += x[r * cols + c];
      y[r * cols + c] = s;
    }
  }
}

int main(int argc, char **argv) {
  const int rows = 8192, cols = 1024;
  auto x = bench::random_floats((size_t)rows * cols, 74);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>((size_t)rows * cols);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { row_cumsum<<<(rows + 127) / 128, 128>>>(rows, cols, dx, dy); });
  std::vector<double> want((size_t)rows * cols);
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < cols; ++c)
      want[(size_t)r * cols + c] = s += x[(size_t)r * cols + c];
  }
  bool ok = bench::all_close(bench::to_host(dy, (size_t)rows * cols), want, 1e-4, 1e-4);
  return bench::report("row_cumsum", ok, ms, 1.0 * rows * cols, 8.0 * rows * cols);
}
