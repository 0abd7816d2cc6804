// nvcc compiles this with a warning (it skips the dynamic initialisation of
// the __shared__ barrier); clang reports an error that does not impair the
// kernel's extraction.
#include <cuda/barrier>

__global__ void barrier_kernel(int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  bar.arrive_and_wait();
  out[threadIdx.x] = 1;
}
