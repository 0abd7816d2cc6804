// Cooperative groups: tiled partitions and cg::reduce, coalesced groups,
// a grid-wide sync launched cooperatively, and memcpy_async into shared memory.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void tile_sum(const float *in, float *out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int i = block.group_index().x * block.size() + block.thread_rank();
  float v = i < n ? in[i] : 0.f;
  float s = cg::reduce(warp, v, cg::plus<float>());
  if (warp.thread_rank() == 0) atomicAdd(out, s);
}

__global__ void count_positive(const int *in, unsigned *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || in[i] <= 0) return;
  cg::coalesced_group active = cg::coalesced_threads();
  if (active.thread_rank() == 0) atomicAdd(count, active.size());
}

__global__ void normalize_grid(float *data, float *partial, int n) {
  cg::grid_group grid = cg::this_grid();
  float local = 0.f;
  for (int i = grid.thread_rank(); i < n; i += grid.size())
    local += data[i] * data[i];
  atomicAdd(partial, local);
  grid.sync();
  float norm = sqrtf(*partial);
  for (int i = grid.thread_rank(); i < n; i += grid.size())
    data[i] /= norm;
}

__global__ void staged_copy(const float *in, float *out, int n) {
  extern __shared__ float tile[];
  cg::thread_block block = cg::this_thread_block();
  int base = blockIdx.x * blockDim.x;
  int count = min(int(blockDim.x), n - base);
  if (count <= 0) return;
  cg::memcpy_async(block, tile, in + base, sizeof(float) * count);
  cg::wait(block);
  if (threadIdx.x < count) out[base + threadIdx.x] = 2.f * tile[threadIdx.x];
}

cudaError_t launch_normalize(float *data, float *partial, int n, cudaStream_t s) {
  void *args[] = {&data, &partial, &n};
  return cudaLaunchCooperativeKernel((void *)normalize_grid, dim3(80), dim3(256), args, 0, s);
}
