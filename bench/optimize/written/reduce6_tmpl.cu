// Per-block sums as the sixth kernel of the classic reduction tutorial
// writes them: a kernel template over the block size, a grid-stride loop
// adding two elements per step, the tree written out behind tests of the
// template argument, and the last warp in an instance of a helper template.
// reduce6<256, float> on 2^25 floats, each thread striding over 8 pairs.
#include "bench_common.h"

template <unsigned blockSize, typename T>
__device__ void warp_reduce(volatile T *sdata, unsigned tid) {
  if (blockSize >= 64) sdata[tid] += sdata[tid + 32];
  if (blockSize >= 32) sdata[tid] += sdata[tid + 16];
  if (blockSize >= 16) sdata[tid] += sdata[tid + 8];
  if (blockSize >= 8) sdata[tid] += sdata[tid + 4];
  if (blockSize >= 4) sdata[tid] += sdata[tid + 2];
  if (blockSize >= 2) sdata[tid] += sdata[tid + 1];
}

template <unsigned blockSize, typename T>
__global__ void reduce6(const T *in, T *partial, unsigned n) {
  __shared__ T sdata[blockSize];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockSize * 2) + tid;
  unsigned gridSize = blockSize * 2 * gridDim.x;
  T sum = 0;
  while (i < n) {
    sum += in[i];
    if (i + blockSize < n) sum += in[i + blockSize];
    i += gridSize;
  }
  sdata[tid] = sum;
  __syncthreads();
  if (blockSize >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
  if (blockSize >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
  if (blockSize >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
  if (tid < 32) warp_reduce<blockSize, T>(sdata, tid);
  if (tid == 0) partial[blockIdx.x] = sdata[0];
}

int main(int argc, char **argv) {
  const unsigned threads = 256, n = 1u << 25, grid = n / (2 * threads) / 8;
  auto x = bench::random_floats(n, 227);
  float *dx = bench::to_device(x), *dp = bench::device_zeros<float>(grid);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { reduce6<256, float><<<grid, threads>>>(dx, dp, n); });
  std::vector<double> want(grid, 0.0);
  for (unsigned j = 0; j < n; ++j)
    want[(j % (2 * threads * grid)) / (2 * threads)] += x[j];
  bool ok = bench::all_close(bench::to_host(dp, grid), want, 1e-4, 1e-4);
  return bench::report("reduce6_tmpl", ok, ms, 1.0 * n, 4.0 * n + 4.0 * grid);
}
