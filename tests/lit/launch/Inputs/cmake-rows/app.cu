// Two archs, one thread-per-row kernel launched through <<<>>>.
#include <cstdio>

__global__ void rows(int n, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) y[r] = 2.0f * x[r];
}

int main() {
  const int n = 1000;
  float *x = nullptr, *y = nullptr;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess || cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) return 0;
  rows<<<(n + 127) / 128, 128>>>(n, x, y);
  std::printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
