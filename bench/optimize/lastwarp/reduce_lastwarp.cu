// A block sum as reduction tutorials finish it: two elements per thread on
// load, a tree over shared memory down to 64 cells, then the first warp
// unrolled through volatile accesses in a helper, without barriers.
#include "bench_common.h"

#define THREADS 256

__device__ void warp_reduce(volatile float *sdata, unsigned int tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

__global__ void reduce_lastwarp(const float *in, float *partial, unsigned int n) {
  __shared__ float sdata[THREADS];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float v = 0.0f;
  if (i < n) v = in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) warp_reduce(sdata, tid);
  if (tid == 0) partial[blockIdx.x] = sdata[0];
}

int main(int argc, char **argv) {
  const unsigned n = 1u << 25, per_block = 2 * THREADS, grid = (n + per_block - 1) / per_block;
  auto x = bench::random_floats(n, 97);
  float *dx = bench::to_device(x), *dp = bench::device_zeros<float>(grid);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { reduce_lastwarp<<<grid, THREADS>>>(dx, dp, n); });
  std::vector<double> want(grid, 0.0);
  for (unsigned i = 0; i < n; ++i)
    want[i / per_block] += x[i];
  bool ok = bench::all_close(bench::to_host(dp, grid), want, 1e-4, 1e-4);
  return bench::report("reduce_lastwarp", ok, ms, 1.0 * n, 4.0 * n + 4.0 * grid);
}
