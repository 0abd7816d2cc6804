// Sum of squares of each column of a column-major matrix, written as many
// numerical libraries write their kernels: C89 declarations, a grid-stride
// while loop, and a fixed launch of 128 blocks of 128 threads.
#include "bench_common.h"

__global__ void colsumsq(int rows, int cols, const float *x, float *out) {
  int i, j, x0, x1;
  float sum;
  j = threadIdx.x + blockIdx.x * blockDim.x;
  while (j < cols) {
    x0 = j * rows;
    x1 = x0 + rows;
    sum = 0;
    for (i = x0; i < x1; i++)
      sum += x[i] * x[i];
    out[j] = sum;
    j += blockDim.x * gridDim.x;
  }
}

int main(int argc, char **argv) {
  const int rows = 4096, cols = 8192;
  auto x = bench::random_floats((size_t)rows * cols, 61);
  float *dx = bench::to_device(x), *dout = bench::device_zeros<float>(cols);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { colsumsq<<<128, 128>>>(rows, cols, dx, dout); });
  std::vector<double> want(cols, 0);
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r)
      want[c] += (double)x[(size_t)c * rows + r] * x[(size_t)c * rows + r];
  bool ok = bench::all_close(bench::to_host(dout, cols), want, 1e-4, 1e-3);
  return bench::report("colsumsq", ok, ms, 2.0 * rows * cols, 4.0 * rows * cols);
}
