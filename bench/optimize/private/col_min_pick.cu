// The smallest value of each column of an integer table (say, the earliest
// timestamp per key), one thread per column, written with ?:.
#include "bench_common.h"

#include <algorithm>

__global__ void col_min_pick(int rows, int cols, const int *t, int *out) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  int m = t[c];
  for (int r = 1; r < rows; ++r) {
    int v = t[(size_t)r * cols + c];
    m = v < m ? v : m;
  }
  out[c] = m;
}

int main(int argc, char **argv) {
  const int rows = 16384, cols = 512;
  std::vector<int> t = bench::random_ints((size_t)rows * cols, 7, 1 << 24); // exact as floats
  int *dt = bench::to_device(t), *dout = bench::device_zeros<int>(cols);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { col_min_pick<<<(cols + 127) / 128, 128>>>(rows, cols, dt, dout); });
  std::vector<double> want(cols);
  for (int c = 0; c < cols; ++c) {
    int m = t[c];
    for (int r = 1; r < rows; ++r)
      m = std::min(m, t[(size_t)r * cols + c]);
    want[c] = m;
  }
  std::vector<int> got = bench::to_host(dout, cols);
  bool ok = bench::all_close(std::vector<float>(got.begin(), got.end()), want, 0, 0);
  return bench::report("col_min_pick", ok, ms, 1.0 * rows * cols, 4.0 * rows * cols);
}
