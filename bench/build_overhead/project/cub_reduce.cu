// Build-overhead project: CUB device-wide sum.
#include "ops.h"

#include <cub/device/device_reduce.cuh>

void cub_sum(int n, const float *in, float *out) {
  size_t bytes = 0;
  cub::DeviceReduce::Sum(nullptr, bytes, in, out, n);
  void *tmp = nullptr;
  cudaMalloc(&tmp, bytes);
  cub::DeviceReduce::Sum(tmp, bytes, in, out, n);
  cudaFree(tmp);
}
