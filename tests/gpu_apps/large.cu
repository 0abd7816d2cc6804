// Test app: a kernel whose launches touch 16 MiB of buffers (launched three
// times, in two launch configurations) and a kernel with small buffers.
#include "common.h"

#include <vector>

__global__ void add_big(const float *a, float *b, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    b[i] += a[i];
}

__global__ void add_small(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] += a[i];
}

int main() {
  const int big = 2 << 20, small = 1024; // 8 MiB and 4 KiB of floats per buffer
  std::vector<float> h(big);
  fill(h.data(), big, 5);
  float *a, *b, *c, *d;
  CHECK(cudaMalloc(&a, big * sizeof(float)));
  CHECK(cudaMalloc(&b, big * sizeof(float)));
  CHECK(cudaMalloc(&c, small * sizeof(float)));
  CHECK(cudaMalloc(&d, small * sizeof(float)));
  CHECK(cudaMemcpy(a, h.data(), big * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, h.data(), big * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(c, h.data(), small * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d, h.data(), small * sizeof(float), cudaMemcpyHostToDevice));
  add_big<<<256, 256>>>(a, b, big);
  add_big<<<256, 256>>>(a, b, big);
  add_big<<<512, 128>>>(a, b, big);
  add_small<<<small / 256, 256>>>(c, d, small);
  add_small<<<small / 256, 256>>>(c, d, small);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> r(big);
  CHECK(cudaMemcpy(r.data(), b, big * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < big; i += 4099)
    if (r[i] != 4 * h[i]) {
      std::printf("large: wrong at %d\n", i);
      return 1;
    }
  std::printf("large: ok\n");
  return 0;
}
