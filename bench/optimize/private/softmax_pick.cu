// A row softmax as a library keeps it private: in an anonymous namespace, one
// thread per row, the row's maximum picked with ?: as C code writes max.
#include "bench_common.h"

#include <cmath>

namespace {
__global__ void softmax_pick(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *row = x + (size_t)r * cols;
  float m = row[0];
  for (int c = 1; c < cols; ++c)
    m = row[c] > m ? row[c] : m;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c)
    s += expf(row[c] - m);
  for (int c = 0; c < cols; ++c)
    y[(size_t)r * cols + c] = expf(row[c] - m) / s;
}
} // namespace

int main(int argc, char **argv) {
  const int rows = 8192, cols = 1024;
  auto x = bench::random_floats((size_t)rows * cols, 91);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>((size_t)rows * cols);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { softmax_pick<<<(rows + 127) / 128, 128>>>(rows, cols, dx, dy); });
  std::vector<double> want((size_t)rows * cols);
  for (int r = 0; r < rows; ++r) {
    const float *row = x.data() + (size_t)r * cols;
    double m = row[0], s = 0;
    for (int c = 1; c < cols; ++c)
      m = std::fmax(m, (double)row[c]);
    for (int c = 0; c < cols; ++c)
      s += std::exp(row[c] - m);
    for (int c = 0; c < cols; ++c)
      want[(size_t)r * cols + c] = std::exp(row[c] - m) / s;
  }
  bool ok = bench::all_close(bench::to_host(dy, (size_t)rows * cols), want, 1e-4, 1e-7);
  return bench::report("softmax_pick", ok, ms, 5.0 * rows * cols, 8.0 * rows * cols);
}
