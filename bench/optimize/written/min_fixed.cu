// Per-block minima of integers with a tree whose first step is a constant,
// the block size the kernel is written for (`THREADS / 2`), and a barrier
// per step down to one cell. One element per thread, 256 threads.
#include "bench_common.h"

#include <climits>

#define THREADS 256

__global__ void min_fixed(const int *in, int *partial, int n) {
  __shared__ int lo[THREADS];
  int t = threadIdx.x;
  int i = blockIdx.x * THREADS + t;
  lo[t] = i < n ? in[i] : INT_MAX;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s >>= 1) {
    if (t < s) lo[t] = min(lo[t], lo[t + s]);
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = lo[0];
}

int main(int argc, char **argv) {
  const int n = 1 << 25, grid = (n + THREADS - 1) / THREADS;
  auto x = bench::random_ints(n, 223, 1 << 30);
  int *dx = bench::to_device(x), *dp = bench::device_zeros<int>(grid);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { min_fixed<<<grid, THREADS>>>(dx, dp, n); });
  std::vector<int> want(grid, INT_MAX), got = bench::to_host(dp, grid);
  for (int i = 0; i < n; ++i)
    want[i / THREADS] = std::min(want[i / THREADS], x[i]);
  bool ok = got == want;
  return bench::report("min_fixed", ok, ms, 1.0 * n, 4.0 * n + 4.0 * grid);
}
