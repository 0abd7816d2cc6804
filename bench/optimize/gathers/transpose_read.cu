// Naive transpose written from the output's side: one thread per output
// element, reading the input across (consecutive threads read a column).
#include "bench_common.h"

__global__ void transpose_read(int rows, int cols, const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[y * cols + x] = in[x * rows + y];
}

int main(int argc, char **argv) {
  const int rows = 4096, cols = 4096;
  auto in = bench::random_floats((size_t)rows * cols, 71);
  float *din = bench::to_device(in), *dout = bench::device_zeros<float>((size_t)rows * cols);
  dim3 block(16, 16), grid((cols + 15) / 16, (rows + 15) / 16);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { transpose_read<<<grid, block>>>(rows, cols, din, dout); });
  std::vector<double> want((size_t)rows * cols);
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x)
      want[(size_t)y * cols + x] = in[(size_t)x * rows + y];
  bool ok = bench::all_close(bench::to_host(dout, (size_t)rows * cols), want, 0, 0);
  return bench::report("transpose_read", ok, ms, 0.0, 8.0 * rows * cols);
}
