// Sparse matrix-vector product in coordinate (COO) form, its entries sorted
// by row as COO matrices usually are: one thread per entry adds its product
// to its row's result with an atomic.
#include "bench_common.h"

__global__ void coo_spmv(int nnz, const int *row, const int *col, const float *val, const float *x, float *y) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz) atomicAdd(&y[row[k]], val[k] * x[col[k]]);
}

int main(int argc, char **argv) {
  const int rows = 1 << 18;
  auto lengths = bench::random_ints(rows, 75, 25); // 0 to 24 entries per row, 12 on average
  std::vector<int> row, col;
  auto cols = bench::random_ints((size_t)rows * 25, 76, rows);
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < lengths[r]; ++j) {
      row.push_back(r);
      col.push_back(cols[row.size() - 1]);
    }
  const int nnz = static_cast<int>(row.size());
  auto val = bench::random_floats(nnz, 77), x = bench::random_floats(rows, 78);
  int *drow = bench::to_device(row), *dcol = bench::to_device(col);
  float *dval = bench::to_device(val), *dx = bench::to_device(x), *dy = bench::device_zeros<float>(rows);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [&] { cudaMemset(dy, 0, rows * sizeof(float)); },
      [&] { coo_spmv<<<(nnz + 255) / 256, 256>>>(nnz, drow, dcol, dval, dx, dy); });
  std::vector<double> want(rows, 0.0), scale(rows, 0.0);
  for (int k = 0; k < nnz; ++k) {
    double t = (double)val[k] * x[col[k]];
    want[row[k]] += t, scale[row[k]] += std::fabs(t);
  }
  auto got = bench::to_host(dy, rows);
  bool ok = true;
  for (int r = 0; r < rows && ok; ++r)
    ok = std::fabs(got[r] - want[r]) <= 1e-5 * scale[r] + 1e-6;
  return bench::report("coo_spmv", ok, ms, 2.0 * nnz, 12.0 * nnz + 8.0 * rows);
}
