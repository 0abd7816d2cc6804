// Global indexes built from locals that hold the builtins.
__global__ void row_sums(const float *x, float *y, int rows, int cols) {
  int tid = threadIdx.x, bid = blockIdx.x;
  const unsigned bdim = blockDim.x;
  int r = bid * bdim + tid;
  if (r >= rows) return;
  float s = 0.0f;
  for (int j = 0; j < cols; ++j)
    s += x[r * cols + j];
  y[r] = s;
}

__global__ void matmul_tx(const float *a, const float *b, float *c, int n) {
  int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * blockDim.x + tx;
  int row = blockIdx.y * blockDim.y + ty;
  if (row < n && col < n) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k)
      sum += a[row * n + k] * b[k * n + col];
    c[row * n + col] = sum;
  }
}

// `tid` is read outside the index: the kernel depends on its thread's place.
__global__ void first_lane(const float *x, float *y, int n) {
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  if (i < n) y[i] = tid == 0 ? 0.0f : x[i];
}

// `tid` changes after its declaration: it no longer holds threadIdx.x.
__global__ void shifted(const float *x, float *y, int n) {
  int tid = threadIdx.x;
  tid += 1;
  int i = blockIdx.x * blockDim.x + tid;
  if (i < n) y[i] = x[i];
}
