// Naive cross-entropy loss per row of logits: one thread per row computes
// the row maximum, the log-sum-exp and the loss of the row's label.
#include "bench_common.h"

__global__ void cross_entropy(int rows, int classes, const float *logits, const int *labels, float *loss) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *z = logits + (size_t)r * classes;
  float m = -INFINITY;
  for (int c = 0; c < classes; ++c)
    m = fmaxf(m, z[c]);
  float s = 0.0f;
  for (int c = 0; c < classes; ++c)
    s += expf(z[c] - m);
  loss[r] = logf(s) + m - z[labels[r]];
}

int main(int argc, char **argv) {
  const int rows = 8192, classes = 1000;
  auto z = bench::random_floats((size_t)rows * classes, 42, -4.0f, 4.0f);
  auto labels = bench::random_ints(rows, 43, classes);
  float *dz = bench::to_device(z), *dl = bench::device_zeros<float>(rows);
  int *dlab = bench::to_device(labels);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { cross_entropy<<<(rows + 127) / 128, 128>>>(rows, classes, dz, dlab, dl); });
  std::vector<double> want(rows);
  for (int r = 0; r < rows; ++r) {
    const float *row = &z[(size_t)r * classes];
    double m = -INFINITY, s = 0;
    for (int c = 0; c < classes; ++c)
      m = std::max(m, (double)row[c]);
    for (int c = 0; c < classes; ++c)
      s += std::exp(row[c] - m);
    want[r] = std::log(s) + m - row[labels[r]];
  }
  bool ok = bench::all_close(bench::to_host(dl, rows), want, 1e-4, 1e-4);
  return bench::report("cross_entropy", ok, ms, 3.0 * rows * classes, 4.0 * rows * classes);
}
