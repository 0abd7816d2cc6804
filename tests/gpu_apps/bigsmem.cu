// Test app: more than 48 KB of dynamic shared memory, launched with
// cudaLaunchKernelEx.
#include "common.h"

#include <vector>

constexpr int kTile = 20 * 1024;  // floats: 80 KB of shared memory

__global__ void reverse_tiles(const float *in, float *out) {
  extern __shared__ float tile[];
  const float *src = in + size_t(blockIdx.x) * kTile;
  for (int i = threadIdx.x; i < kTile; i += blockDim.x) tile[i] = src[i];
  __syncthreads();
  for (int i = threadIdx.x; i < kTile; i += blockDim.x) out[size_t(blockIdx.x) * kTile + i] = tile[kTile - 1 - i];
}

int main() {
  const int blocks = 64, n = blocks * kTile;
  std::vector<float> h(n);
  fill(h.data(), n, 7);
  float *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  size_t smem = kTile * sizeof(float);
  CHECK(cudaFuncSetAttribute(reverse_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(256);
  cfg.dynamicSmemBytes = smem;
  CHECK(cudaLaunchKernelEx(&cfg, reverse_tiles, (const float *)in, out));
  CHECK(cudaDeviceSynchronize());
  std::vector<float> r(n);
  CHECK(cudaMemcpy(r.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b)
    if (r[size_t(b) * kTile] != h[size_t(b) * kTile + kTile - 1]) {
      std::printf("bigsmem: wrong\n");
      return 1;
    }
  std::printf("bigsmem: ok (%zu bytes of dynamic shared memory)\n", smem);
  return 0;
}
