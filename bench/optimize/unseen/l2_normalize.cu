// Naive L2 normalization of each row of a matrix: one thread per row, a loop
// for the norm and a loop that scales the row.
#include "bench_common.h"

__global__ void l2_normalize(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float ss = 0.0f;
    for (int c = 0; c < cols; ++c) ss += x[r * cols + c] * x[r * cols + c];
    float inv = 1.0f / sqrtf(ss + 1e-12f);
    for (int c = 0; c < cols; ++c) y[r * cols + c] = x[r * cols + c] * inv;
  }
}

int main(int argc, char **argv) {
  const int rows = 16384, cols = 512;
  auto x = bench::random_floats((size_t)rows * cols, 67);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>((size_t)rows * cols);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { l2_normalize<<<(rows + 255) / 256, 256>>>(rows, cols, dx, dy); });
  std::vector<double> want((size_t)rows * cols);
  for (int r = 0; r < rows; ++r) {
    double ss = 0;
    for (int c = 0; c < cols; ++c) ss += (double)x[(size_t)r * cols + c] * x[(size_t)r * cols + c];
    double inv = 1.0 / std::sqrt(ss + 1e-12);
    for (int c = 0; c < cols; ++c) want[(size_t)r * cols + c] = x[(size_t)r * cols + c] * inv;
  }
  bool ok = bench::all_close(bench::to_host(dy, (size_t)rows * cols), want, 1e-4, 1e-5);
  return bench::report("l2_normalize", ok, ms, 3.0 * rows * cols, 8.0 * rows * cols);
}
