// A unit that also uses OpenMP on the host: <omp.h> lives in the host
// compiler's own include directory (GCC's), which nvcc searches.
#include <cstdio>
#include <omp.h>
#include <vector>

__global__ void square_kernel(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}

__global__ void offset_kernel(int *data, int offset, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += offset;
}

void host_prepare(std::vector<float> &v) {
  int threads = omp_get_max_threads();
#pragma omp parallel for num_threads(threads)
  for (int i = 0; i < static_cast<int>(v.size()); ++i)
    v[i] = 0.5f * i;
  std::printf("prepared with %d threads\n", threads);
}
