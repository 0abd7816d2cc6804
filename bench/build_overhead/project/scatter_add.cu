// Build-overhead project: indexed scatter with atomics.
#include "ops.h"

__global__ void scatter_add_kernel(int n, const int *idx, const float *src, float *dst) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&dst[idx[i]], src[i]);
}

void scatter_add(int n, const int *idx, const float *src, float *dst) {
  scatter_add_kernel<<<(n + 255) / 256, 256>>>(n, idx, src, dst);
}
