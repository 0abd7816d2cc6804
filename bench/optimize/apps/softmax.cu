// Naive row softmax: one thread per row, three passes over the row
// (uncoalesced across the warp).
#include "bench_common.h"

__global__ void softmax_rows(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *in = x + (size_t)r * cols;
  float *out = y + (size_t)r * cols;
  float m = in[0];
  for (int c = 1; c < cols; ++c)
    m = fmaxf(m, in[c]);
  float s = 0.0f;
  for (int c = 0; c < cols; ++c)
    s += expf(in[c] - m);
  for (int c = 0; c < cols; ++c)
    out[c] = expf(in[c] - m) / s;
}

int main(int argc, char **argv) {
  const int rows = 4096, cols = 1024;
  const size_t n = (size_t)rows * cols;
  auto x = bench::random_floats(n, 4, -4.0f, 4.0f);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { softmax_rows<<<(rows + 127) / 128, 128>>>(rows, cols, dx, dy); });
  std::vector<double> want(n);
  for (int r = 0; r < rows; ++r) {
    double m = x[(size_t)r * cols], s = 0;
    for (int c = 1; c < cols; ++c)
      m = std::max(m, (double)x[(size_t)r * cols + c]);
    for (int c = 0; c < cols; ++c)
      s += std::exp(x[(size_t)r * cols + c] - m);
    for (int c = 0; c < cols; ++c)
      want[(size_t)r * cols + c] = std::exp(x[(size_t)r * cols + c] - m) / s;
  }
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-4, 1e-7);
  return bench::report("softmax", ok, ms, 5.0 * n, 8.0 * n);
}
