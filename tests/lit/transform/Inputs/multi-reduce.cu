// Tree reductions that combine several shared arrays in the same steps.

// Per-row mean of the finite values: a sum and a count, one block per row.
__global__ void finite_mean(const float *x, float *mean, int cols) {
  __shared__ float sum[256];
  __shared__ int count[256];
  const float *row = x + (size_t)blockIdx.x * cols;
  sum[threadIdx.x] = 0.0f;
  count[threadIdx.x] = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    if (isfinite(row[c])) {
      sum[threadIdx.x] += row[c];
      count[threadIdx.x] += 1;
    }
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      sum[threadIdx.x] += sum[threadIdx.x + s];
      count[threadIdx.x] += count[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) mean[blockIdx.x] = count[0] ? sum[0] / count[0] : 0.0f;
}

// The range of each block's values: a min and a max.
__global__ void block_range(const float *x, float *lo, float *hi, int n) {
  __shared__ float a[512], b[512];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  a[threadIdx.x] = i < n ? x[i] : 3.0e38f;
  b[threadIdx.x] = i < n ? x[i] : -3.0e38f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      a[threadIdx.x] = fminf(a[threadIdx.x], a[threadIdx.x + s]);
      b[threadIdx.x] = fmaxf(b[threadIdx.x], b[threadIdx.x + s]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    lo[blockIdx.x] = a[0];
    hi[blockIdx.x] = b[0];
  }
}

// The second array combines other cells than the first: refused.
__global__ void skewed(const float *x, float *out) {
  __shared__ float a[256], b[256];
  a[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  b[threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      a[threadIdx.x] += a[threadIdx.x + s];
      b[threadIdx.x] += b[threadIdx.x + 1];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = a[0] + b[0];
}
