// Build-overhead project: logistic function.
#include "ops.h"

__global__ void sigmoid_kernel(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 1.0f / (1.0f + expf(-x[i]));
}

void sigmoid(int n, const float *x, float *y) { sigmoid_kernel<<<(n + 255) / 256, 256>>>(n, x, y); }
