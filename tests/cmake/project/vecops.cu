#include "vecops.h"

__device__ float vecops_combine(float a, float b) { return a * VECOPS_FACTOR + b; }

__global__ void axpy_kernel(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = vecops_combine(a * x[i], y[i]);
}

void vecops_axpy(float *d_y, const float *d_x, float a, int n) { axpy_kernel<<<(n + 127) / 128, 128>>>(d_y, d_x, a, n); }
