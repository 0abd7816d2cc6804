// Naive matrix transpose: coalesced reads, strided writes.
#include "bench_common.h"

__global__ void transpose_naive(int rows, int cols, const float *in, float *out) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

int main(int argc, char **argv) {
  const int rows = 2048, cols = 2048;
  const size_t n = (size_t)rows * cols;
  auto x = bench::random_floats(n, 8);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>(n);
  dim3 block(16, 16), grid((cols + 15) / 16, (rows + 15) / 16);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { transpose_naive<<<grid, block>>>(rows, cols, dx, dy); });
  std::vector<double> want = bench::transpose_reference(x, rows, cols);
  bool ok = bench::all_close(bench::to_host(dy, n), want, 0, 0);
  return bench::report("transpose", ok, ms, 0, 8.0 * n);
}
