// Kernels of every kind kbcc must find: plain, template (two instantiations),
// namespaced, extern "C", static, and one from a user header.
#include <cuda_runtime.h>
#include "kernels.h"

__global__ void saxpy(int n, float a, const float *__restrict__ x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T>
__global__ void scale(T *data, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

namespace ns {
namespace inner {
__global__ void fill(double *out, double v, char tag) { out[threadIdx.x] = v + tag; }
}  // namespace inner
}  // namespace ns

extern "C" __global__ void c_kernel(Pair p, unsigned long long *out) { out[0] = p.b; }

static __global__ void local_kernel(int *x) { x[0] = 1; }

void launch_all(float *f, double *d, int *i, Pair *pairs, unsigned long long *u, int n) {
  saxpy<<<1, 32>>>(n, 2.0f, f, f);
  scale<float><<<1, 32>>>(f, 3.0f, n);
  scale<<<1, 32>>>(i, 3, n);
  ns::inner::fill<<<1, 32>>>(d, 1.0, 'a');
  c_kernel<<<1, 1>>>(pairs[0], u);
  local_kernel<<<1, 1>>>(i);
  header_kernel<<<1, 32>>>(pairs, n);
  void *args[] = {&n};
  cudaLaunchKernel((const void *)saxpy, dim3(1), dim3(32), args, 0, 0);
}
