// Rows scaled to unit L1 norm, written C-style: the row length in a macro,
// locals declared first and set later, one thread per row.
#include "bench_common.h"

#define ROWS 8192
#define COLS 1024

__global__ void rownorm_cstyle(const float *x, float *y) {
  int r, j;
  float s, inv;
  r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= ROWS) return;
  s = 0.0f;
  for (j = 0; j < COLS; j++)
    s += fabsf(x[r * COLS + j]);
  inv = 1.0f / (s + 1e-6f);
  for (j = 0; j < COLS; j++)
    y[r * COLS + j] = x[r * COLS + j] * inv;
}

int main(int argc, char **argv) {
  const size_t n = (size_t)ROWS * COLS;
  auto x = bench::random_floats(n, 113);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { rownorm_cstyle<<<(ROWS + 127) / 128, 128>>>(dx, dy); });
  std::vector<double> want(n);
  for (int r = 0; r < ROWS; ++r) {
    double s = 0;
    for (int j = 0; j < COLS; ++j)
      s += std::fabs(x[(size_t)r * COLS + j]);
    for (int j = 0; j < COLS; ++j)
      want[(size_t)r * COLS + j] = x[(size_t)r * COLS + j] / (s + 1e-6);
  }
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-4, 1e-7);
  return bench::report("rownorm_cstyle", ok, ms, 3.0 * n, 8.0 * n);
}
