// Naive row-wise log-sum-exp (a softmax's normaliser): one thread per row,
// the row's maximum and its sum of exponentials in __device__ helpers.
#include "bench_common.h"

__device__ float row_max(const float *row, int n) {
  float m = row[0];
  for (int j = 1; j < n; ++j)
    m = fmaxf(m, row[j]);
  return m;
}

__device__ float sum_exp(const float *row, int n, float shift) {
  float s = 0.0f;
  for (int j = 0; j < n; ++j)
    s += expf(row[j] - shift);
  return s;
}

__global__ void row_logsumexp(int rows, int cols, const float *x, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const float *row = x + (size_t)r * cols;
    float m = row_max(row, cols);
    out[r] = m + logf(sum_exp(row, cols, m));
  }
}

int main(int argc, char **argv) {
  const int rows = 8192, cols = 1024;
  auto x = bench::random_floats((size_t)rows * cols, 73);
  float *dx = bench::to_device(x), *dout = bench::device_zeros<float>(rows);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { row_logsumexp<<<(rows + 255) / 256, 256>>>(rows, cols, dx, dout); });
  std::vector<double> want(rows);
  for (int r = 0; r < rows; ++r) {
    double m = x[(size_t)r * cols];
    for (int j = 1; j < cols; ++j)
      m = std::max(m, (double)x[(size_t)r * cols + j]);
    double s = 0;
    for (int j = 0; j < cols; ++j)
      s += std::exp(x[(size_t)r * cols + j] - m);
    want[r] = m + std::log(s);
  }
  bool ok = bench::all_close(bench::to_host(dout, rows), want, 1e-4, 1e-5);
  return bench::report("row_logsumexp", ok, ms, 3.0 * rows * cols, 4.0 * rows * cols);
}
