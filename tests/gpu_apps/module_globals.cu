// Test app: a module whose kernels use __device__ globals of their own and
// print (the string literals become module globals: $str, $str$1).
#include "common.h"

#include <vector>

__device__ float gain[4] = {2.f, 3.f, 4.f, 5.f}; // used by apply_gain
__device__ int other_table[64];                  // used by fill_other only

__global__ void apply_gain(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= gain[i & 3];
}

__global__ void fill_other(int value) {
  if (threadIdx.x < 64) other_table[threadIdx.x] = value;
}

__global__ void report(const float *v) {
  if (threadIdx.x == 0) printf("module_globals: v[0] = %f\n", v[0]);
}

int main() {
  const int n = 1 << 16;
  std::vector<float> h(n);
  fill(h.data(), n, 11);
  float *v;
  CHECK(cudaMalloc(&v, n * sizeof(float)));
  CHECK(cudaMemcpy(v, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  fill_other<<<1, 64>>>(7);
  apply_gain<<<n / 256, 256>>>(v, n);
  report<<<1, 32>>>(v);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> r(n);
  CHECK(cudaMemcpy(r.data(), v, n * sizeof(float), cudaMemcpyDeviceToHost));
  const float expect[4] = {2.f, 3.f, 4.f, 5.f};
  for (int i = 0; i < n; ++i)
    if (r[i] != h[i] * expect[i & 3]) {
      std::printf("module_globals: wrong at %d\n", i);
      return 1;
    }
  std::printf("module_globals: ok\n");
  return 0;
}
