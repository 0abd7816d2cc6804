// A block sum whose steps start with the barrier, after a grid-stride loop
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

// The barrier twice in a step: neither order of one update and one barrier.
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
