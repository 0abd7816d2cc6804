// Thread 0 adds up the block's partial sums in a loop after a barrier.
__global__ void block_total(int n, const float *x, float *out) {
  __shared__ float part[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? x[i] * x[i] : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float sum = 0.0f;
    for (int k = 0; k < blockDim.x; ++k) sum += part[k];
    out[blockIdx.x] = sum;
  }
}
