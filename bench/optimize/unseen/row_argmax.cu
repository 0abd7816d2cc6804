// Naive row-wise argmax (a classifier's predicted labels): one thread per row,
// the first index of the row's largest value.
#include "bench_common.h"

__global__ void row_argmax(int rows, int cols, const float *logits, int *label) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *row = logits + (size_t)r * cols;
  float best = row[0];
  int arg = 0;
  for (int c = 1; c < cols; ++c) {
    if (row[c] > best) {
      best = row[c];
      arg = c;
    }
  }
  label[r] = arg;
}

int main(int argc, char **argv) {
  const int rows = 8192, cols = 1000;
  auto x = bench::random_floats((size_t)rows * cols, 61);
  float *dx = bench::to_device(x);
  int *dl = bench::device_zeros<int>(rows);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { row_argmax<<<(rows + 127) / 128, 128>>>(rows, cols, dx, dl); });
  std::vector<double> want(rows);
  for (int r = 0; r < rows; ++r) {
    int arg = 0;
    for (int c = 1; c < cols; ++c)
      if (x[(size_t)r * cols + c] > x[(size_t)r * cols + arg]) arg = c;
    want[r] = arg;
  }
  std::vector<int> got = bench::to_host(dl, rows);
  bool ok = bench::all_close(std::vector<float>(got.begin(), got.end()), want, 0, 0);
  return bench::report("row_argmax", ok, ms, 1.0 * rows * cols, 4.0 * rows * cols);
}
