// Steps written out that shuffle_collectives refuses.

// The barrier inside the thread's branch: not every thread reaches it.
__global__ void divergent_barrier(const float *x, float *out) {
  __shared__ float s[512];
  unsigned tid = threadIdx.x;
  s[tid] = x[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  if (blockDim.x >= 512 && tid < 256) { s[tid] += s[tid + 256]; __syncthreads(); }
  if (blockDim.x >= 256 && tid < 128) { s[tid] += s[tid + 128]; __syncthreads(); }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// The barrier after the first step runs for no block of 1024 threads or fewer.
__global__ void skipped_barrier(const int *x, int *out) {
  __shared__ int s[1024];
  int t = threadIdx.x;
  s[t] = x[blockIdx.x * blockDim.x + t];
  __syncthreads();
  if (blockDim.x >= 1024 && t < 512) s[t] += s[t + 512];
  if (blockDim.x > 1024) __syncthreads();
  if (t < 256) s[t] += s[t + 256];
  __syncthreads();
  if (t < 128) s[t] += s[t + 128];
  __syncthreads();
  if (t == 0) out[blockIdx.x] = s[0];
}

// The last step is missing: cell 1 never reaches cell 0.
__global__ void missing_step(const int *x, int *out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = x[blockIdx.x * blockDim.x + t];
  __syncthreads();
  if (blockDim.x >= 256) { if (t < 128) s[t] += s[t + 128]; __syncthreads(); }
  if (blockDim.x >= 128) { if (t < 64) s[t] += s[t + 64]; __syncthreads(); }
  if (t < 32) s[t] += s[t + 32];
  __syncthreads();
  if (t < 16) s[t] += s[t + 16];
  __syncthreads();
  if (t < 8) s[t] += s[t + 8];
  __syncthreads();
  if (t < 4) s[t] += s[t + 4];
  __syncthreads();
  if (t < 2) s[t] += s[t + 2];
  __syncthreads();
  if (t == 0) out[blockIdx.x] = s[0];
}
