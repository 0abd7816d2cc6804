// Per-block partial dot products, written as textbooks write them: a
// grid-stride while loop into a per-thread sum, then a tree over a shared
// cache whose stride halves in a while loop.
#define THREADS 256

__global__ void dot_partials(int n, const float *a, const float *b, float *partial) {
  __shared__ float cache[THREADS];
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  int slot = threadIdx.x;
  float sum = 0;
  while (tid < n) {
    sum += a[tid] * b[tid];
    tid += blockDim.x * gridDim.x;
  }
  cache[slot] = sum;
  __syncthreads();
  int i = blockDim.x / 2;
  while (i != 0) {
    if (slot < i) cache[slot] += cache[slot + i];
    __syncthreads();
    i /= 2;
  }
  if (slot == 0) partial[blockIdx.x] = cache[0];
}
