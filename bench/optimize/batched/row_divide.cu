// Rows divided by their sums (a softmax's last step): one block of 1024
// threads per row, the threads striding the row by blockDim.x.
#include "bench_common.h"

__global__ void row_divide(int cols, const float *x, const float *sums, float *y) {
  int row = blockIdx.x;
  float inv = 1.0f / sums[row];
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[(size_t)row * cols + c] = x[(size_t)row * cols + c] * inv;
}

int main(int argc, char **argv) {
  const int rows = 16384, cols = 300;
  const size_t n = (size_t)rows * cols;
  auto x = bench::random_floats(n, 94), sums = bench::random_floats(rows, 95, 1.0f, 4.0f);
  float *dx = bench::to_device(x), *ds = bench::to_device(sums), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { row_divide<<<rows, 1024>>>(cols, dx, ds, dy); });
  std::vector<double> want(n);
  for (size_t i = 0; i < n; ++i)
    want[i] = (double)x[i] * (1.0f / sums[i / cols]);
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-5, 1e-7);
  return bench::report("row_divide", ok, ms, 1.0 * n, 8.0 * n);
}
