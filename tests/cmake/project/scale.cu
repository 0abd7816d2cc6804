#include "vecops.h"

template <typename T> __global__ void scale_kernel(T *x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = vecops_combine(x[i], a);
}

void vecops_scale(float *d_x, float a, int n) { scale_kernel<float><<<(n + 255) / 256, 256>>>(d_x, a, n); }
