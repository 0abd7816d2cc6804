// Warp-level primitives and atomics: shuffles, votes, match, warp
// reductions (sm_80+), atomics on several types, __activemask.
#include <cuda_runtime.h>

__global__ void warp_reduce_shfl(const float *in, float *out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

__global__ void ballot_count(const int *flags, unsigned *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned mask = __ballot_sync(__activemask(), i < n && flags[i]);
  if ((threadIdx.x & 31) == 0) atomicAdd(count, __popc(mask));
}

__global__ void redux_sum(const unsigned *in, unsigned *out) {
  unsigned v = __reduce_add_sync(0xffffffffu, in[blockIdx.x * blockDim.x + threadIdx.x]);
  if ((threadIdx.x & 31) == 0) out[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = v;
}

__global__ void match_keys(const int *keys, unsigned *peers) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  peers[i] = __match_any_sync(0xffffffffu, keys[i]);
}

__global__ void atomics_mix(double *d, unsigned long long *u, int *mx, float *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(d, 1.0);
  atomicAdd(u, 1ull);
  atomicMax(mx, i);
  atomicExch(f + (i & 7), float(i));
  atomicCAS(mx + 1, 0, i);
}
