// y = A x for a sparse matrix in ELLPACK form, stored column-major (entry k
// of row r at k * rows + r), padding marked by a column of -1; one thread
// per row.
#include "bench_common.h"

__global__ void ell_spmv(int rows, int width, const int *cols, const float *vals, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float dot = 0;
    for (int k = 0; k < width; k++) {
      int c = cols[k * rows + r];
      if (c >= 0) dot += vals[k * rows + r] * x[c];
    }
    y[r] = dot;
  }
}

int main(int argc, char **argv) {
  const int rows = 1 << 20, width = 24, n = 1 << 20;
  std::vector<int> cols = bench::random_ints((size_t)rows * width, 391, n), len = bench::random_ints(rows, 392, width);
  for (int r = 0; r < rows; ++r)
    for (int k = len[r] + 1; k < width; ++k)
      cols[(size_t)k * rows + r] = -1; // rows of 1 to width entries
  auto vals = bench::random_floats((size_t)rows * width, 393), x = bench::random_floats(n, 394);
  int *dc = bench::to_device(cols);
  float *dv = bench::to_device(vals), *dx = bench::to_device(x), *dy = bench::device_zeros<float>(rows);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { ell_spmv<<<(rows + 255) / 256, 256>>>(rows, width, dc, dv, dx, dy); });
  std::vector<double> want(rows, 0.0);
  double nnz = 0;
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < width; ++k) {
      int c = cols[(size_t)k * rows + r];
      if (c >= 0) want[r] += (double)vals[(size_t)k * rows + r] * x[c], ++nnz;
    }
  bool ok = bench::all_close(bench::to_host(dy, rows), want, 1e-4, 1e-5);
  return bench::report("ell_spmv", ok, ms, 2.0 * nnz, 8.0 * rows * width + 4.0 * nnz + 4.0 * rows);
}
