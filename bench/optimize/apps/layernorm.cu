// Naive layer normalization: one thread per row, two-pass mean/variance.
#include "bench_common.h"

__global__ void layernorm_rows(int rows, int cols, const float *x, const float *gamma, const float *beta, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *in = x + (size_t)r * cols;
  float mean = 0.0f;
  for (int c = 0; c < cols; ++c)
    mean += in[c];
  mean /= cols;
  float var = 0.0f;
  for (int c = 0; c < cols; ++c)
    var += (in[c] - mean) * (in[c] - mean);
  var /= cols;
  float inv = 1.0f / sqrtf(var + 1e-5f);
  for (int c = 0; c < cols; ++c)
    y[(size_t)r * cols + c] = (in[c] - mean) * inv * gamma[c] + beta[c];
}

int main(int argc, char **argv) {
  const int rows = 4096, cols = 1024;
  const size_t n = (size_t)rows * cols;
  auto x = bench::random_floats(n, 5), g = bench::random_floats(cols, 6, 0.5f, 1.5f), b = bench::random_floats(cols, 7);
  float *dx = bench::to_device(x), *dg = bench::to_device(g), *db = bench::to_device(b);
  float *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { layernorm_rows<<<(rows + 127) / 128, 128>>>(rows, cols, dx, dg, db, dy); });
  std::vector<double> want(n);
  for (int r = 0; r < rows; ++r) {
    const float *in = &x[(size_t)r * cols];
    double mean = 0, var = 0;
    for (int c = 0; c < cols; ++c)
      mean += in[c];
    mean /= cols;
    for (int c = 0; c < cols; ++c)
      var += (in[c] - mean) * (in[c] - mean);
    var /= cols;
    double inv = 1.0 / std::sqrt(var + 1e-5);
    for (int c = 0; c < cols; ++c)
      want[(size_t)r * cols + c] = (in[c] - mean) * inv * g[c] + b[c];
  }
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-4, 1e-4);
  return bench::report("layernorm", ok, ms, 8.0 * n, 8.0 * n);
}
