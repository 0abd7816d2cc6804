// Thread 0's loops kbcc keeps.
__global__ void no_barrier(const float *x, float *out) {
  __shared__ float part[256];
  part[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  if (threadIdx.x == 0) {
    float sum = 0.0f;
    for (int k = 0; k < blockDim.x; ++k) sum += part[k];
    out[blockIdx.x] = sum;
  }
}

__global__ void reads_own_target(const float *x, float *out) {
  __shared__ float part[256];
  part[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int k = 0; k < blockDim.x; ++k) part[0] += part[k];
    out[blockIdx.x] = part[0];
  }
}

__global__ void writes_before(const float *x, float *out) {
  __shared__ float part[256];
  part[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    part[1] = 0.0f;
    float sum = 0.0f;
    for (int k = 0; k < blockDim.x; ++k) sum += part[k];
    out[blockIdx.x] = sum;
  }
}

__global__ void index_read_after(const float *x, float *out) {
  __shared__ float part[256];
  int k;
  part[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float sum = 0.0f;
    for (k = 0; k < blockDim.x; ++k) sum += part[k];
    out[blockIdx.x] = sum + k;
  }
}

__global__ void thread_one(const float *x, float *out) {
  __shared__ float part[256];
  part[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 1) {
    float sum = 0.0f;
    for (int k = 0; k < blockDim.x; ++k) sum += part[k];
    out[blockIdx.x] = sum;
  }
}

__global__ void per_thread_index(const float *x, float *out) {
  __shared__ float part[256];
  part[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float sum = 0.0f;
    for (int k = 0; k < blockDim.x; ++k) sum += part[(k + threadIdx.x) % blockDim.x];
    out[blockIdx.x] = sum;
  }
}

__global__ void global_target(const float *x, int n, float *out) {
  if (threadIdx.x == 0)
    for (int i = 0; i < n; ++i) out[blockIdx.x] += x[blockIdx.x * n + i];
}
