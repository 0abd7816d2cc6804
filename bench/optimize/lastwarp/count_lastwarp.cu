// Counting the elements equal to a key: one element per thread, a tree over
// shared memory down to 64 cells, the first warp unrolled through a volatile
// pointer in the kernel, and one atomic per block into the total.
#include "bench_common.h"

#define THREADS 256

__global__ void count_lastwarp(const int *keys, int key, int n, int *count) {
  __shared__ int hits[THREADS];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  hits[t] = i < n && keys[i] == key ? 1 : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 32; s /= 2) {
    if (t < s) hits[t] += hits[t + s];
    __syncthreads();
  }
  if (t < 32) {
    volatile int *w = hits;
    w[t] += w[t + 32];
    w[t] += w[t + 16];
    w[t] += w[t + 8];
    w[t] += w[t + 4];
    w[t] += w[t + 2];
    w[t] += w[t + 1];
  }
  if (t == 0) atomicAdd(count, hits[0]);
}

int main(int argc, char **argv) {
  const int n = 1 << 25, key = 7;
  auto keys = bench::random_ints(n, 101, 16);
  int *dk = bench::to_device(keys), *dc = bench::device_zeros<int>(1);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [&] { cudaMemset(dc, 0, sizeof(int)); },
      [&] { count_lastwarp<<<(n + THREADS - 1) / THREADS, THREADS>>>(dk, key, n, dc); });
  long want = 0;
  for (int v : keys)
    want += v == key;
  int got = bench::to_host(dc, 1)[0];
  bool ok = got == want;
  return bench::report("count_lastwarp", ok, ms, 1.0 * n, 4.0 * n);
}
