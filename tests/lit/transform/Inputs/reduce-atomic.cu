// The largest key of each block meets in one atomicMax; the tree halves the
// active threads each step (sequential addressing).
__global__ void max_key(const int *keys, int *out, int n) {
  __shared__ int best[1024];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  int key = i < n ? keys[i] : -2147483647 - 1;
  best[tid] = key;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) best[tid] = max(best[tid], best[tid + s]);
    __syncthreads();
  }
  if (tid == 0) atomicMax(out, best[0]);
}
