// Build-overhead project: in-place scaling.
#include "ops.h"

__global__ void scale_kernel(int n, float s, float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= s;
}

void scale(int n, float s, float *x) { scale_kernel<<<(n + 255) / 256, 256>>>(n, s, x); }
