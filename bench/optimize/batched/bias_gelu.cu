// Bias add and tanh-approximated GELU on a [rows][cols] activation: the row in
// blockIdx.y, the column a global index in x, one warp per block.
#include "bench_common.h"

__global__ void bias_gelu(int cols, const float *x, const float *bias, float *y) {
  int row = blockIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < cols) {
    float v = x[row * cols + col] + bias[col];
    float u = 0.7978845608f * (v + 0.044715f * v * v * v);
    y[row * cols + col] = 0.5f * v * (1.0f + tanhf(u));
  }
}

int main(int argc, char **argv) {
  const int rows = 8192, cols = 3000;
  const size_t n = (size_t)rows * cols;
  auto x = bench::random_floats(n, 92, -3.0f, 3.0f), bias = bench::random_floats(cols, 93);
  float *dx = bench::to_device(x), *db = bench::to_device(bias), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { bias_gelu<<<dim3((cols + 31) / 32, rows), 32>>>(cols, dx, db, dy); });
  std::vector<double> want(n);
  for (size_t i = 0; i < n; ++i) {
    double v = (double)x[i] + bias[i % cols];
    want[i] = 0.5 * v * (1.0 + std::tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
  }
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-4, 1e-6);
  return bench::report("bias_gelu", ok, ms, 10.0 * n, 8.0 * n);
}
