// The module of module_globals.cu rebuilt from other source: apply_gain and
// gain unchanged, but another kernel's table and the printed strings differ
// in size. A replay of apply_gain with this cubin must not be blocked.
#include <cstdio>

__device__ float gain[4] = {2.f, 3.f, 4.f, 5.f};
__device__ int other_table[128];

__global__ void apply_gain(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= gain[i & 3];
}

__global__ void fill_other(int value) {
  if (threadIdx.x < 128) other_table[threadIdx.x] = value;
}

__global__ void report(const float *v) {
  if (threadIdx.x == 0) printf("module_globals (rebuilt with longer messages): v[0] = %f\n", v[0]);
  if (threadIdx.x == 1) printf("module_globals: a second message\n");
}
