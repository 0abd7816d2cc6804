// Build-overhead project: dot product with atomics.
#include "ops.h"

__global__ void dot_kernel(int n, const float *x, const float *y, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i] * y[i]);
}

void dot(int n, const float *x, const float *y, float *out) { dot_kernel<<<(n + 255) / 256, 256>>>(n, x, y, out); }
