// Kernels that synchronize and that thread_coarsening refuses to coarsen
// across their barriers, each for one reason.

// Warp shuffles assume a warp's 32 threads run together.
__global__ void warp_sums(const float *in, float *out) {
  __shared__ float part[32];
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = part[0] + part[1];
}

// Each thread's trip count differs, and every trip meets a barrier.
__global__ void strided_rounds(const float *in, float *out, int n) {
  __shared__ float stage[256];
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    stage[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = stage[blockDim.x - 1 - threadIdx.x];
    __syncthreads();
  }
}

// A thread leaves the loop of barriers on a value of its own.
__global__ void early_exit(const int *in, int *out, int rounds) {
  __shared__ int cell[128];
  int v = in[threadIdx.x];
  for (int r = 0; r < rounds; ++r) {
    cell[threadIdx.x] = v;
    __syncthreads();
    v += cell[(threadIdx.x + 1) % 128];
    if (v > 1000) break;
    __syncthreads();
  }
  out[threadIdx.x] = v;
}

// A thread returns with work done, before the barrier.
__global__ void late_return(const int *in, int *out, int n) {
  __shared__ int cell[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) {
    out[0] = 0;
    return;
  }
  cell[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = cell[127 - threadIdx.x];
}

// A barrier on one side of a branch the threads take differently.
__global__ void split_sides(const int *in, int *out) {
  __shared__ int cell[128];
  if (threadIdx.x < 64) {
    cell[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
  } else {
    cell[threadIdx.x] = 0;
  }
  out[threadIdx.x] = cell[threadIdx.x];
}

// __syncthreads_count gives each thread a value of the whole block.
__global__ void counted(const int *in, int *out) {
  int c = __syncthreads_count(in[threadIdx.x] > 0);
  out[threadIdx.x] = c;
}
