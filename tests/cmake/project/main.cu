#include "vecops.h"

#include <cstdio>

__global__ void fill(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = vecops_combine(1.0f, static_cast<float>(i));
}

int main() {
  const int n = 1024;
  float *x = nullptr, *y = nullptr;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess || cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) {
    std::printf("no CUDA device\n");
    return 0;
  }
  fill<<<(n + 255) / 256, 256>>>(x, n);
  fill<<<(n + 255) / 256, 256>>>(y, n);
  vecops_scale(x, 2.0f, n);
  vecops_axpy(y, x, 0.5f, n);
  float h = 0;
  cudaMemcpy(&h, y + 10, sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("y[10] = %g\n", h);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
