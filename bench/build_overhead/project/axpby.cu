// Build-overhead project: y = a*x + b*y.
#include "ops.h"

__global__ void axpby_kernel(int n, float a, const float *x, float b, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b * y[i];
}

void axpby(int n, float a, const float *x, float b, float *y) { axpby_kernel<<<(n + 255) / 256, 256>>>(n, a, x, b, y); }
