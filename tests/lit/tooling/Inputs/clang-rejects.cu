// nvcc accepts this unit; clang rejects the __shared__ barrier in `barrier_kernel`.
#include <cuda/barrier>

__global__ void barrier_kernel(int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  bar.arrive_and_wait();
  out[threadIdx.x] = 1;
}

__global__ void clean_kernel(int *out) { out[threadIdx.x] = 2; }
