// RMS normalisation with a learned scale, one thread per row: a sum of
// squares, then the scaled row.
#include "bench_common.h"

__global__ void rmsnorm(float *out, const float *in, const float *weight, int rows, int dim, float eps) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const float *x = in + (long)row * dim;
  float ss = 0.0f;
  for (int j = 0; j < dim; j++)
    ss += x[j] * x[j];
  ss = ss / dim + eps;
  float inv = rsqrtf(ss);
  for (int j = 0; j < dim; j++)
    out[(long)row * dim + j] = weight[j] * (x[j] * inv);
}

int main(int argc, char **argv) {
  const int rows = 8192, dim = 1024;
  const float eps = 1e-5f;
  auto x = bench::random_floats((size_t)rows * dim, 311), w = bench::random_floats(dim, 312, 0.5f, 1.5f);
  float *dx = bench::to_device(x), *dw = bench::to_device(w), *dy = bench::device_zeros<float>((size_t)rows * dim);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { rmsnorm<<<(rows + 127) / 128, 128>>>(dy, dx, dw, rows, dim, eps); });
  std::vector<double> want((size_t)rows * dim);
  for (int r = 0; r < rows; ++r) {
    double ss = 0;
    for (int j = 0; j < dim; ++j)
      ss += (double)x[(size_t)r * dim + j] * x[(size_t)r * dim + j];
    double inv = 1.0 / std::sqrt(ss / dim + eps);
    for (int j = 0; j < dim; ++j)
      want[(size_t)r * dim + j] = w[j] * (x[(size_t)r * dim + j] * inv);
  }
  bool ok = bench::all_close(bench::to_host(dy, want.size()), want, 1e-4, 1e-5);
  return bench::report("rmsnorm", ok, ms, 4.0 * rows * dim, 8.0 * rows * dim);
}
