// Elementwise kernel, written naively: one element per thread.
#include "kernels.h"

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void launch_saxpy(int n, float a, const float *x, float *y, cudaStream_t s) {
  int block = 128;
  saxpy<<<(n + block - 1) / block, block, 0, s>>>(n, a, x, y);
}
