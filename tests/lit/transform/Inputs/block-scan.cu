// A block-wise inclusive scan, Hillis-Steele with a barrier per step.
__global__ void scan_blocks(int n, const int *x, int *y) {
  __shared__ int buf[1024];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? x[i] : 0;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off *= 2) {
    int v = t >= off ? buf[t - off] : 0;
    __syncthreads();
    buf[t] += v;
    __syncthreads();
  }
  if (i < n) y[i] = buf[t];
}
