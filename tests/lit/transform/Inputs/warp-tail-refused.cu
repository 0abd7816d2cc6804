// Last-warp reductions that shuffle_collectives must keep.
#define THREADS 256

// Plain accesses: the compiler may keep b[t] in a register across the steps.
__global__ void plain_tail(const int *x, int *out) {
  __shared__ int b[THREADS];
  int t = threadIdx.x;
  b[t] = x[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (t < s) b[t] += b[t + s];
    __syncthreads();
  }
  if (t < 32) {
    b[t] += b[t + 32];
    b[t] += b[t + 16];
    b[t] += b[t + 8];
    b[t] += b[t + 4];
    b[t] += b[t + 2];
    b[t] += b[t + 1];
  }
  if (t == 0) out[blockIdx.x] = b[0];
}

// The step of 8 is missing: cells 8 to 15 never reach cell 0.
__global__ void missing_step(const int *x, int *out) {
  __shared__ int b[THREADS];
  int t = threadIdx.x;
  b[t] = x[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (t < s) b[t] += b[t + s];
    __syncthreads();
  }
  if (t < 32) {
    volatile int *w = b;
    w[t] += w[t + 32];
    w[t] += w[t + 16];
    w[t] += w[t + 4];
    w[t] += w[t + 2];
    w[t] += w[t + 1];
  }
  if (t == 0) out[blockIdx.x] = b[0];
}

// Two warps without a barrier between them: their steps do not run together.
__global__ void two_warps(const int *x, int *out) {
  __shared__ int b[THREADS];
  int t = threadIdx.x;
  b[t] = x[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 64; s >>= 1) {
    if (t < s) b[t] += b[t + s];
    __syncthreads();
  }
  if (t < 64) {
    volatile int *w = b;
    w[t] += w[t + 64];
    if (t < 32) w[t] += w[t + 32];
    if (t < 16) w[t] += w[t + 16];
    if (t < 8) w[t] += w[t + 8];
    if (t < 4) w[t] += w[t + 4];
    if (t < 2) w[t] += w[t + 2];
    if (t < 1) w[t] += w[t + 1];
  }
  if (t == 0) out[blockIdx.x] = b[0];
}

// Cells other than the first are read after the reduction.
__global__ void reads_other_cells(const int *x, int *out) {
  __shared__ int b[THREADS];
  int t = threadIdx.x;
  b[t] = x[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (t < s) b[t] += b[t + s];
    __syncthreads();
  }
  if (t < 32) {
    volatile int *w = b;
    w[t] += w[t + 32];
    w[t] += w[t + 16];
    w[t] += w[t + 8];
    w[t] += w[t + 4];
    w[t] += w[t + 2];
    w[t] += w[t + 1];
  }
  if (t < 2) out[blockIdx.x * 2 + t] = b[t];
}
