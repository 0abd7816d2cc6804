// Host code that uses more headers only the host compiler provides
// (GCC's OpenACC and libbacktrace headers) next to kernels.
#include <backtrace.h>
#include <openacc.h>

__global__ void fill_kernel(unsigned *p, unsigned v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v ^ i;
}

int host_devices() { return acc_get_num_devices(acc_device_host); }
