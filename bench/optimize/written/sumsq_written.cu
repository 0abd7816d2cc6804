// Per-block sums of squares with the tree written out a step per statement,
// each behind a test of the block's size, as reduction tutorials write the
// "completely unrolled" kernel, then the first warp through a volatile
// pointer without barriers. One element per thread, 512 threads.
#include "bench_common.h"

#define THREADS 512

__global__ void sumsq_written(const float *in, float *partial, unsigned int n) {
  __shared__ float sdata[THREADS];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + tid;
  float v = i < n ? in[i] : 0.0f;
  sdata[tid] = v * v;
  __syncthreads();
  if (blockDim.x >= 1024) { if (tid < 512) sdata[tid] += sdata[tid + 512]; __syncthreads(); }
  if (blockDim.x >= 512) { if (tid < 256) sdata[tid] += sdata[tid + 256]; __syncthreads(); }
  if (blockDim.x >= 256) { if (tid < 128) sdata[tid] += sdata[tid + 128]; __syncthreads(); }
  if (blockDim.x >= 128) { if (tid < 64) sdata[tid] += sdata[tid + 64]; __syncthreads(); }
  if (tid < 32) {
    volatile float *w = sdata;
    w[tid] += w[tid + 32];
    w[tid] += w[tid + 16];
    w[tid] += w[tid + 8];
    w[tid] += w[tid + 4];
    w[tid] += w[tid + 2];
    w[tid] += w[tid + 1];
  }
  if (tid == 0) partial[blockIdx.x] = sdata[0];
}

int main(int argc, char **argv) {
  const unsigned n = 1u << 25, grid = (n + THREADS - 1) / THREADS;
  auto x = bench::random_floats(n, 211);
  float *dx = bench::to_device(x), *dp = bench::device_zeros<float>(grid);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { sumsq_written<<<grid, THREADS>>>(dx, dp, n); });
  std::vector<double> want(grid, 0.0);
  for (unsigned i = 0; i < n; ++i)
    want[i / THREADS] += (double)x[i] * x[i];
  bool ok = bench::all_close(bench::to_host(dp, grid), want, 1e-4, 1e-4);
  return bench::report("sumsq_written", ok, ms, 2.0 * n, 4.0 * n + 4.0 * grid);
}
