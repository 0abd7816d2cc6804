// A matrix product through 32 x 32 shared tiles in blocks of 1024 threads,
// the size a course picks to fill a block; the bounds check holds the
// barriers, so the size must be a multiple of the tile.
#include "bench_common.h"

#define TILE_WIDTH 32

__global__ void mm_smem32(const float *M, const float *N, float *P, int width) {
  __shared__ float Ms[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Ns[TILE_WIDTH][TILE_WIDTH];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE_WIDTH + ty;
  int col = blockIdx.x * TILE_WIDTH + tx;
  if (row < width && col < width) {
    float value = 0;
    for (int ph = 0; ph < width / TILE_WIDTH; ++ph) {
      Ms[ty][tx] = M[row * width + ph * TILE_WIDTH + tx];
      Ns[ty][tx] = N[(ph * TILE_WIDTH + ty) * width + col];
      __syncthreads();
      for (int k = 0; k < TILE_WIDTH; ++k)
        value += Ms[ty][k] * Ns[k][tx];
      __syncthreads();
    }
    P[row * width + col] = value;
  }
}

int main(int argc, char **argv) {
  const int n = 2048;
  auto m = bench::random_floats((size_t)n * n, 321), nn = bench::random_floats((size_t)n * n, 322);
  float *dm = bench::to_device(m), *dn = bench::to_device(nn), *dp = bench::device_zeros<float>((size_t)n * n);
  dim3 block(TILE_WIDTH, TILE_WIDTH), grid(n / TILE_WIDTH, n / TILE_WIDTH);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { mm_smem32<<<grid, block>>>(dm, dn, dp, n); });
  auto p = bench::to_host(dp, (size_t)n * n);
  bool ok = true;
  for (int i = 0; i < n && ok; i += 67)
    for (int j = 0; j < n && ok; j += 71) {
      double want = 0;
      for (int k = 0; k < n; ++k)
        want += double(m[(size_t)i * n + k]) * nn[(size_t)k * n + j];
      ok = std::fabs(p[(size_t)i * n + j] - want) <= 1e-3 + 1e-4 * std::fabs(want);
      if (!ok) std::fprintf(stderr, "P[%d][%d]: got %.6f, want %.6f\n", i, j, p[(size_t)i * n + j], want);
    }
  return bench::report("mm_smem32", ok, ms, 2.0 * n * n * n, 12.0 * n * n);
}
