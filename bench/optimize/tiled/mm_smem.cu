// A matrix product through 16 x 16 shared tiles, one output per thread, as
// course material writes it once past the naive version: both operands are
// staged, but every multiply-add reads two values from shared memory.
#include "bench_common.h"

#define TILE 16

__global__ void mm_smem(const float *a, const float *b, float *c, int n) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
    int k_a = t * TILE + threadIdx.x, k_b = t * TILE + threadIdx.y;
    as[threadIdx.y][threadIdx.x] = row < n && k_a < n ? a[row * n + k_a] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = k_b < n && col < n ? b[k_b * n + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = acc;
}

int main(int argc, char **argv) {
  const int n = 1024;
  auto a = bench::random_floats((size_t)n * n, 311), b = bench::random_floats((size_t)n * n, 312);
  float *da = bench::to_device(a), *db = bench::to_device(b), *dc = bench::device_zeros<float>((size_t)n * n);
  dim3 block(TILE, TILE), grid(n / TILE, n / TILE);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { mm_smem<<<grid, block>>>(da, db, dc, n); });
  bool ok = bench::all_close(bench::to_host(dc, (size_t)n * n), bench::matmul_reference(a, b, n, n, n), 1e-4, 1e-3);
  return bench::report("mm_smem", ok, ms, 2.0 * n * n * n, 12.0 * n * n);
}
