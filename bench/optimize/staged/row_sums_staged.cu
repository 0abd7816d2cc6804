// Row sums with the reads coalesced by hand: a block stages 32 rows by 32
// columns at a time in shared memory, then thread r of the first warp adds
// up row r of the tile, reading the tile along its rows: each lane on its
// own row, all of them on one bank.
#include "bench_common.h"

__global__ void row_sums_staged(const float *m, float *sums, int rows, int cols) {
  __shared__ float tile[32][32];
  int row0 = blockIdx.x * 32;
  float s = 0.0f;
  for (int c0 = 0; c0 < cols; c0 += 32) {
    for (int r = threadIdx.y; r < 32; r += blockDim.y) {
      int c = c0 + threadIdx.x;
      tile[r][threadIdx.x] = row0 + r < rows && c < cols ? m[(size_t)(row0 + r) * cols + c] : 0.0f;
    }
    __syncthreads();
    if (threadIdx.y == 0)
      for (int j = 0; j < 32; ++j)
        s += tile[threadIdx.x][j];
    __syncthreads();
  }
  if (threadIdx.y == 0 && row0 + threadIdx.x < rows) sums[row0 + threadIdx.x] = s;
}

int main(int argc, char **argv) {
  const int rows = 16384, cols = 1024;
  auto m = bench::random_floats((size_t)rows * cols, 89);
  float *dm = bench::to_device(m), *ds = bench::device_zeros<float>(rows);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { row_sums_staged<<<rows / 32, dim3(32, 8)>>>(dm, ds, rows, cols); });
  std::vector<double> want(rows);
  for (int r = 0; r < rows; ++r) {
    float s = 0.0f;
    for (int c = 0; c < cols; ++c)
      s += m[(size_t)r * cols + c];
    want[r] = s;
  }
  bool ok = bench::all_close(bench::to_host(ds, rows), want, 1e-5, 1e-5);
  return bench::report("row_sums_staged", ok, ms, 1.0 * rows * cols, 4.0 * rows * cols + 4.0 * rows);
}
