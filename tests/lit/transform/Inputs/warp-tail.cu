// Tree reductions whose loop stops at 64 cells and whose first warp ends the
// reduction without barriers, through volatile accesses: the "unrolled last
// warp" of many tutorials and libraries.
#define THREADS 256

// Two elements per thread on load, the last warp in a helper.
__device__ void warp_reduce(volatile float *cells, unsigned int tid) {
  cells[tid] += cells[tid + 32];
  cells[tid] += cells[tid + 16];
  cells[tid] += cells[tid + 8];
  cells[tid] += cells[tid + 4];
  cells[tid] += cells[tid + 2];
  cells[tid] += cells[tid + 1];
}

__global__ void reduce_pairs(const float *in, float *out, unsigned int n) {
  __shared__ float sdata[THREADS];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  float v = 0.0f;
  if (i < n) v = in[i];
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) warp_reduce(sdata, tid);
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// The last warp written in the kernel; the block totals meet in one atomic.
__global__ void count_matches(const int *keys, int key, int n, int *count) {
  __shared__ int hits[THREADS];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  hits[t] = i < n && keys[i] == key ? 1 : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 32; s /= 2) {
    if (t < s) hits[t] += hits[t + s];
    __syncthreads();
  }
  if (t < 32) {
    volatile int *w = hits;
    w[t] += w[t + 32];
    w[t] += w[t + 16];
    w[t] += w[t + 8];
    w[t] += w[t + 4];
    w[t] += w[t + 2];
    w[t] += w[t + 1];
  }
  if (t == 0) atomicAdd(count, hits[0]);
}

// A maximum whose first warp step is guarded by the block's size, with
// __syncwarp() between some steps.
__global__ void block_max(const float *x, float *out, int n) {
  __shared__ float m[THREADS];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  m[t] = i < n ? x[i] : -1e30f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (t < s) m[t] = fmaxf(m[t], m[t + s]);
    __syncthreads();
  }
  if (t < 32) {
    volatile float *v = m;
    if (blockDim.x >= 64) v[t] = fmaxf(v[t], v[t + 32]);
    __syncwarp();
    v[t] = fmaxf(v[t], v[t + 16]);
    __syncwarp();
    v[t] = fmaxf(v[t], v[t + 8]);
    v[t] = fmaxf(v[t], v[t + 4]);
    v[t] = fmaxf(v[t], v[t + 2]);
    v[t] = fmaxf(v[t], v[t + 1]);
  }
  if (t == 0) out[blockIdx.x] = m[0];
}
