// A transpose through a padded 32 x 32 shared tile, one element per thread
// in blocks of 1024 threads: reads and writes coalesced, no bank conflicts,
// but a block's single load per thread keeps little memory traffic in
// flight around its barrier.
#include "bench_common.h"

#define SIDE 32

__global__ void transpose_smem(float *out, const float *in, int width, int height) {
  __shared__ float tile[SIDE][SIDE + 1];
  int x = blockIdx.x * SIDE + threadIdx.x;
  int y = blockIdx.y * SIDE + threadIdx.y;
  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[(size_t)y * width + x];
  __syncthreads();
  x = blockIdx.y * SIDE + threadIdx.x;
  y = blockIdx.x * SIDE + threadIdx.y;
  if (x < height && y < width) out[(size_t)y * height + x] = tile[threadIdx.x][threadIdx.y];
}

int main(int argc, char **argv) {
  const int width = 8192, height = 4096;
  auto in = bench::random_floats((size_t)width * height, 331);
  float *din = bench::to_device(in), *dout = bench::device_zeros<float>((size_t)width * height);
  dim3 block(SIDE, SIDE), grid(width / SIDE, height / SIDE);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { transpose_smem<<<grid, block>>>(dout, din, width, height); });
  bool ok = bench::all_close(bench::to_host(dout, (size_t)width * height),
                             bench::transpose_reference(in, height, width), 0, 0);
  return bench::report("transpose_smem", ok, ms, 0.0, 8.0 * width * height);
}
