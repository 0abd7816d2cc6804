// Row L2 norms written with an unroll hint on the row loop: one thread per
// row, `#pragma unroll 4` above the loop, as tuned code often has it.
#include "bench_common.h"

__global__ void rownorm_unroll(const float *__restrict__ x, float *__restrict__ norms, int rows, int cols) {
  const int r = blockDim.x * blockIdx.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
#pragma unroll 4
    for (int c = 0; c < cols; c++) s += __ldg(&x[(size_t)r * cols + c]) * __ldg(&x[(size_t)r * cols + c]);
    norms[r] = sqrtf(s);
  }
}

int main(int argc, char **argv) {
  const int rows = 32768, cols = 256;
  auto x = bench::random_floats((size_t)rows * cols, 71);
  float *dx = bench::to_device(x), *dn = bench::device_zeros<float>(rows);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { rownorm_unroll<<<(rows + 127) / 128, 128>>>(dx, dn, rows, cols); });
  std::vector<double> want(rows);
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < cols; ++c) s += (double)x[(size_t)r * cols + c] * x[(size_t)r * cols + c];
    want[r] = std::sqrt(s);
  }
  bool ok = bench::all_close(bench::to_host(dn, rows), want, 1e-4, 1e-5);
  return bench::report("rownorm_unroll", ok, ms, 2.0 * rows * cols, 4.0 * rows * cols + 4.0 * rows);
}
