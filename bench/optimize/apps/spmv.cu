// Naive CSR sparse matrix-vector product: one thread per row.
#include "bench_common.h"

__global__ void spmv_csr(int rows, const int *row_ptr, const int *cols, const float *vals, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k)
    acc += vals[k] * x[cols[k]];
  y[r] = acc;
}

int main(int argc, char **argv) {
  const int rows = 1 << 18, per_row_max = 32;
  auto lens = bench::random_ints(rows, 18, per_row_max + 1);
  std::vector<int> row_ptr(rows + 1, 0);
  for (int r = 0; r < rows; ++r)
    row_ptr[r + 1] = row_ptr[r] + lens[r];
  const int nnz = row_ptr[rows];
  auto cols = bench::random_ints(nnz, 19, rows);
  auto vals = bench::random_floats(nnz, 20), x = bench::random_floats(rows, 21);
  int *drp = bench::to_device(row_ptr), *dcols = bench::to_device(cols);
  float *dvals = bench::to_device(vals), *dx = bench::to_device(x), *dy = bench::device_zeros<float>(rows);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { spmv_csr<<<(rows + 127) / 128, 128>>>(rows, drp, dcols, dvals, dx, dy); });
  std::vector<double> want(rows);
  for (int r = 0; r < rows; ++r) {
    double acc = 0;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k)
      acc += (double)vals[k] * x[cols[k]];
    want[r] = acc;
  }
  bool ok = bench::all_close(bench::to_host(dy, rows), want, 1e-4, 1e-5);
  return bench::report("spmv", ok, ms, 2.0 * nnz, 12.0 * nnz + 8.0 * rows);
}
