// Asynchronous copies with cuda::pipeline and a block-scoped cuda::barrier,
// as libcu++ users write them.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>

namespace cg = cooperative_groups;

__global__ void pipelined_sum(const float *in, float *out, int tiles) {
  __shared__ float stage[2][256];
  auto block = cg::this_thread_block();
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto pipe = cuda::make_pipeline(block, &state);
  float acc = 0.f;
  for (int t = 0; t < tiles; ++t) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, stage[t % 2], in + t * 256, sizeof(float) * 256, pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    acc += stage[t % 2][threadIdx.x];
    pipe.consumer_release();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void barrier_copy(const int *in, int *out) {
  __shared__ int tile[128];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(tile + threadIdx.x, in + blockIdx.x * 128 + threadIdx.x, sizeof(int), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 128 + threadIdx.x] = tile[127 - threadIdx.x];
}
