// A unit that uses OpenMP on the host: nvcc finds <omp.h> in GCC's own
// include directory.
#include <omp.h>

__global__ void scale(float *v, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= s;
}

int host_threads() { return omp_get_max_threads(); }
