// Block sums: one whose steps start with the barrier, after a grid-stride loop
// that accumulates each thread's share into its own cell.
#define BLOCK 256
__global__ void reduce(const float *in, float *out, size_t n) {
  __shared__ float sdata[BLOCK];
  int tid = threadIdx.x;
  sdata[tid] = 0.0f;
  for (size_t i = threadIdx.x + blockDim.x * blockIdx.x; i < n; i += gridDim.x * blockDim.x)
    sdata[tid] += in[i];
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    __syncthreads();
    if (tid < s) sdata[tid] += sdata[tid + s];
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// The barrier twice in a step and no update: neither a reduction's step
// nor a scan's.
__global__ void twice(const float *in, float *out) {
  __shared__ float sdata[BLOCK];
  int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    __syncthreads();
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Interleaved addressing: each step declares the cell it updates.
__global__ void interleaved(const int *in, int *out) {
  __shared__ int sdata[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[threadIdx.x] = in[i];
  __syncthreads();
  for (int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * threadIdx.x;;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, sdata[0]);
}

// A step local that changes within the step is no index arithmetic.
__global__ void stepped(const int *in, int *out) {
  __shared__ int sdata[BLOCK];
  sdata[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * threadIdx.x;
    index += 0;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = sdata[0];
}
