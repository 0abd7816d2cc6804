// Matrix multiply, written naively: one output per thread, all loads from
// global memory.
#include "kernels.h"

__global__ void matmul(int n, const float *a, const float *b, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}

void launch_matmul(int n, const float *a, const float *b, float *c, cudaStream_t s) {
  dim3 block(16, 16);
  dim3 grid((n + block.x - 1) / block.x, (n + block.y - 1) / block.y);
  matmul<<<grid, block, 0, s>>>(n, a, b, c);
}
