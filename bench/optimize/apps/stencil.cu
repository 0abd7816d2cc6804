// Naive 2-D five-point stencil (Jacobi step), every neighbour from global memory.
#include "bench_common.h"

__global__ void stencil5(int rows, int cols, const float *in, float *out) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r <= 0 || c <= 0 || r >= rows - 1 || c >= cols - 1) return;
  size_t i = (size_t)r * cols + c;
  out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - cols] + in[i + cols]);
}

int main(int argc, char **argv) {
  const int rows = 2048, cols = 2048;
  const size_t n = (size_t)rows * cols;
  auto x = bench::random_floats(n, 11);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>(n);
  dim3 block(32, 4), grid((cols + 31) / 32, (rows + 3) / 4);
  float ms =
      bench::time_ms(bench::reps_from_args(argc, argv), [] {}, [&] { stencil5<<<grid, block>>>(rows, cols, dx, dy); });
  std::vector<double> want(n, 0.0);
  for (int r = 1; r < rows - 1; ++r)
    for (int c = 1; c < cols - 1; ++c) {
      size_t i = (size_t)r * cols + c;
      want[i] = 0.2 * ((double)x[i] + x[i - 1] + x[i + 1] + x[i - cols] + x[i + cols]);
    }
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-5, 1e-6);
  return bench::report("stencil", ok, ms, 5.0 * n, 8.0 * n);
}
