// A transpose staged through a shared tile, as tutorials write it before
// padding: reads and writes coalesced, but the tile is read down its
// columns, 32 lanes on one bank.
#include "bench_common.h"

#define TILE 32
#define ROWS 8

__global__ void transpose_tiled(float *out, const float *in, int width, int height) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < height && y + j < width) out[(size_t)(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char **argv) {
  const int width = 8192, height = 4096;
  auto in = bench::random_floats((size_t)width * height, 83);
  float *din = bench::to_device(in), *dout = bench::device_zeros<float>((size_t)width * height);
  dim3 block(TILE, ROWS), grid(width / TILE, height / TILE);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { transpose_tiled<<<grid, block>>>(dout, din, width, height); });
  std::vector<double> want((size_t)width * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      want[(size_t)x * height + y] = in[(size_t)y * width + x];
  bool ok = bench::all_close(bench::to_host(dout, (size_t)width * height), want, 0, 0);
  return bench::report("transpose_tiled", ok, ms, 0.0, 8.0 * width * height);
}
