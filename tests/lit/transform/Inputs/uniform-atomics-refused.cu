// Atomics warp_aggregated_atomics must leave alone.
__global__ void claim(const float *x, float *out, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.0f) {
    int slot = atomicAdd(count, 1);
    out[slot] = x[i];
  }
}


__global__ void reads_back(const float *x, float *sum, float *seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, x[i]);
  if (i == 0) seen[0] = sum[0];
}

__global__ void last_writer(int *last, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicExch(last, i);
}

__global__ void moving_target(const float *x, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, x[i]);
  sum += 1;
}

__device__ int seen;
__device__ int peek() { return seen; }
__global__ void peeks(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&seen, 1);
    out[i] = peek();
  }
}

__global__ void count_launches(const float *x, float *y, unsigned *launches, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
  if (i == 0) atomicAdd(launches, 1u);
}

__global__ void block_then_atomic(const float *x, float *sum, int n) {
  __shared__ float part[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (threadIdx.x % 32 == 0) {
    float t = 0.0f;
    for (int j = 0; j < 32; ++j)
      t += part[threadIdx.x + j];
    atomicAdd(sum, t);
  }
}

__global__ void few_bins(const int *x, int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[x[i] % 16], 1);
}
