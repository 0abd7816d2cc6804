// One element per thread (block_size and thread_coarsening apply).
__global__ void axpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Two read streams and a write stream (vectorized_loads vectorizes all three).
__global__ void axpby(int n, float a, const float *x, float b, const float *y, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + b * y[i];
}
