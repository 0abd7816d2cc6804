// Naive dense matrix-vector product: one thread per row (strided reads).
#include "bench_common.h"

__global__ void matvec_rows(int rows, int cols, const float *m, const float *v, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c)
    acc += m[(size_t)r * cols + c] * v[c];
  y[r] = acc;
}

int main(int argc, char **argv) {
  const int rows = 4096, cols = 2048;
  auto m = bench::random_floats((size_t)rows * cols, 22), v = bench::random_floats(cols, 23);
  float *dm = bench::to_device(m), *dv = bench::to_device(v), *dy = bench::device_zeros<float>(rows);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { matvec_rows<<<(rows + 127) / 128, 128>>>(rows, cols, dm, dv, dy); });
  std::vector<double> want(rows);
  for (int r = 0; r < rows; ++r) {
    double acc = 0;
    for (int c = 0; c < cols; ++c)
      acc += (double)m[(size_t)r * cols + c] * v[c];
    want[r] = acc;
  }
  bool ok = bench::all_close(bench::to_host(dy, rows), want, 1e-4, 1e-4);
  return bench::report("matvec", ok, ms, 2.0 * rows * cols, 4.0 * rows * cols);
}
