// Atomics warp_aggregated_atomics must leave alone.
__global__ void claim(const float *x, float *out, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.0f) {
    int slot = atomicAdd(count, 1);
    out[slot] = x[i];
  }
}

__global__ void bins(const int *x, int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[x[i] % 16], 1);
}

__global__ void chunk_sums(const float *x, float *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int c = i / 256;
  if (i < n) atomicAdd(&sums[c], x[i]);
}

__global__ void reads_back(const float *x, float *sum, float *seen, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(sum, x[i]);
  if (i == 0) seen[0] = sum[0];
}

__global__ void mixed(const int *x, int *count, int *peak, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(count, 1);
    atomicMax(peak, x[i]);
  }
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
