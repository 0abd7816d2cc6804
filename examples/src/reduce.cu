// Sum reduction, written naively: shared-memory tree with divergent
// branches and one atomicAdd per block.
#include "kernels.h"

__global__ void reduce_sum(int n, const float *x, float *out) {
  extern __shared__ float buf[];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  buf[t] = i < (unsigned)n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (t % (2 * s) == 0) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, buf[0]);
}

void launch_reduce_sum(int n, const float *x, float *out, cudaStream_t s) {
  int block = 256;
  reduce_sum<<<(n + block - 1) / block, block, block * sizeof(float), s>>>(n, x, out);
}
