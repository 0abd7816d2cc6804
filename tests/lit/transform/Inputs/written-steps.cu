// Block reductions written out a step per statement, each behind a test of
// the block's size: shuffle_collectives takes them as it takes loops.

// Every step behind `blockDim.x >= N`, the barrier inside; the last warp
// through a volatile pointer.
__global__ void sum_written(const float *x, float *out, int n) {
  __shared__ float s[1024];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tid;
  s[tid] = i < (unsigned)n ? x[i] : 0.0f;
  __syncthreads();
  if (blockDim.x >= 1024) { if (tid < 512) s[tid] += s[tid + 512]; __syncthreads(); }
  if (blockDim.x >= 512) { if (tid < 256) s[tid] += s[tid + 256]; __syncthreads(); }
  if (blockDim.x >= 256) { if (tid < 128) s[tid] += s[tid + 128]; __syncthreads(); }
  if (blockDim.x >= 128) { if (tid < 64) s[tid] += s[tid + 64]; __syncthreads(); }
  if (tid < 32) {
    volatile float *v = s;
    v[tid] += v[tid + 32];
    v[tid] += v[tid + 16];
    v[tid] += v[tid + 8];
    v[tid] += v[tid + 4];
    v[tid] += v[tid + 2];
    v[tid] += v[tid + 1];
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// The size test and the thread's in one guard, the barrier after it; no
// 1024 step, so blocks of 1024 keep the code as written.
__global__ void max_written(const int *x, int *out, int n) {
  __shared__ int m[512];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  m[t] = i < n ? x[i] : -2147483647 - 1;
  __syncthreads();
  if (blockDim.x >= 512 && t < 256) m[t] = max(m[t], m[t + 256]);
  __syncthreads();
  if (blockDim.x >= 256 && t < 128) m[t] = max(m[t], m[t + 128]);
  __syncthreads();
  if (blockDim.x >= 128 && t < 64) m[t] = max(m[t], m[t + 64]);
  __syncthreads();
  if (blockDim.x >= 64 && t < 32) m[t] = max(m[t], m[t + 32]);
  __syncthreads();
  if (t < 16) m[t] = max(m[t], m[t + 16]);
  __syncthreads();
  if (t < 8) m[t] = max(m[t], m[t + 8]);
  __syncthreads();
  if (t < 4) m[t] = max(m[t], m[t + 4]);
  __syncthreads();
  if (t < 2) m[t] = max(m[t], m[t + 2]);
  __syncthreads();
  if (t < 1) m[t] = max(m[t], m[t + 1]);
  __syncthreads();
  if (t == 0) atomicMax(out, m[0]);
}

// A kernel template over the block size: each instance's tests are constants.
template <unsigned blockSize>
__global__ void sum_template(const double *x, double *out, unsigned n) {
  extern __shared__ double sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockSize * 2) + tid;
  unsigned gridSize = blockSize * 2 * gridDim.x;
  sdata[tid] = 0;
  while (i < n) {
    sdata[tid] += x[i] + (i + blockSize < n ? x[i + blockSize] : 0.0);
    i += gridSize;
  }
  __syncthreads();
  if (blockSize >= 512) { if (tid < 256) { sdata[tid] += sdata[tid + 256]; } __syncthreads(); }
  if (blockSize >= 256) { if (tid < 128) { sdata[tid] += sdata[tid + 128]; } __syncthreads(); }
  if (blockSize >= 128) { if (tid < 64) { sdata[tid] += sdata[tid + 64]; } __syncthreads(); }
  if (tid < 32) {
    volatile double *w = sdata;
    if (blockSize >= 64) w[tid] += w[tid + 32];
    if (blockSize >= 32) w[tid] += w[tid + 16];
    if (blockSize >= 16) w[tid] += w[tid + 8];
    if (blockSize >= 8) w[tid] += w[tid + 4];
    if (blockSize >= 4) w[tid] += w[tid + 2];
    if (blockSize >= 2) w[tid] += w[tid + 1];
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

template __global__ void sum_template<256>(const double *, double *, unsigned);

// A loop from a constant: proven for the one block it was written for.
#define THREADS 256
__global__ void sum_fixed(const float *x, float *out, int n) {
  __shared__ float s[THREADS];
  int t = threadIdx.x;
  int i = blockIdx.x * THREADS + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int k = THREADS / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// A kernel template whose last warp is an instance of a helper template.
template <unsigned blockSize, typename T>
__device__ void warp_sum(volatile T *cells, unsigned tid) {
  if (blockSize >= 64) cells[tid] += cells[tid + 32];
  if (blockSize >= 32) cells[tid] += cells[tid + 16];
  if (blockSize >= 16) cells[tid] += cells[tid + 8];
  if (blockSize >= 8) cells[tid] += cells[tid + 4];
  if (blockSize >= 4) cells[tid] += cells[tid + 2];
  if (blockSize >= 2) cells[tid] += cells[tid + 1];
}

template <unsigned blockSize, typename T>
__global__ void sum_helper(const T *x, T *out, unsigned n) {
  __shared__ T cells[blockSize];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockSize + tid;
  cells[tid] = i < n ? x[i] : T(0);
  __syncthreads();
  if (blockSize >= 512) { if (tid < 256) cells[tid] += cells[tid + 256]; __syncthreads(); }
  if (blockSize >= 256) { if (tid < 128) cells[tid] += cells[tid + 128]; __syncthreads(); }
  if (blockSize >= 128) { if (tid < 64) cells[tid] += cells[tid + 64]; __syncthreads(); }
  if (tid < 32) warp_sum<blockSize, T>(cells, tid);
  if (tid == 0) out[blockIdx.x] = cells[0];
}

template __global__ void sum_helper<128, float>(const float *, float *, unsigned);
