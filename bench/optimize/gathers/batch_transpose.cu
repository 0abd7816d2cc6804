// Naive batched transpose (one plane per blockIdx.z), written from the
// output's side: one thread per output element, reading its plane across.
#include "bench_common.h"

__global__ void batch_transpose(int rows, int cols, const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t plane = (size_t)blockIdx.z * rows * cols;
  if (x < cols && y < rows) out[plane + y * cols + x] = in[plane + x * rows + y];
}

int main(int argc, char **argv) {
  const int planes = 16, rows = 1024, cols = 1024;
  const size_t size = (size_t)planes * rows * cols;
  auto in = bench::random_floats(size, 73);
  float *din = bench::to_device(in), *dout = bench::device_zeros<float>(size);
  dim3 block(16, 16), grid((cols + 15) / 16, (rows + 15) / 16, planes);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { batch_transpose<<<grid, block>>>(rows, cols, din, dout); });
  std::vector<double> want(size);
  for (int p = 0; p < planes; ++p)
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x)
        want[(size_t)p * rows * cols + (size_t)y * cols + x] = in[(size_t)p * rows * cols + (size_t)x * rows + y];
  bool ok = bench::all_close(bench::to_host(dout, size), want, 0, 0);
  return bench::report("batch_transpose", ok, ms, 0.0, 8.0 * size);
}
