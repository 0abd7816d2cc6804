// Naive row sums in double precision, the column loop written as a while
// loop: one thread per row.
#include "bench_common.h"

__global__ void while_rowsum(const double *m, double *out, int rows, int cols) {
  int r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r >= rows) return;
  double s = 0;
  int c = 0;
  while (c < cols) {
    s += m[(size_t)r * cols + c];
    c++;
  }
  out[r] = s;
}

int main(int argc, char **argv) {
  const int rows = 4096, cols = 2048;
  auto x = bench::random_floats((size_t)rows * cols, 79);
  std::vector<double> m(x.begin(), x.end());
  double *dm = bench::to_device(m), *dout = bench::device_zeros<double>(rows);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { while_rowsum<<<(rows + 255) / 256, 256>>>(dm, dout, rows, cols); });
  std::vector<double> want(rows);
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < cols; ++c)
      s += m[(size_t)r * cols + c];
    want[r] = s;
  }
  std::vector<double> got = bench::to_host(dout, rows);
  bool ok = bench::all_close(std::vector<float>(got.begin(), got.end()), want, 1e-5, 1e-6);
  return bench::report("while_rowsum", ok, ms, 1.0 * rows * cols, 8.0 * rows * cols);
}
