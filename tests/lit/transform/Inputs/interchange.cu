// Rows in x, columns in y: consecutive threads of a warp are a row apart.
__global__ void add_rows(int n, const float *a, const float *b, float *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) c[i * n + j] = a[i * n + j] + b[i * n + j];
}

// A matrix product with the same mapping: A is read along the thread's row
// inside the loop, C stored across rows.
__global__ void matmul_rows(int n, const float *A, const float *B, float *C) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float s = 0;
  for (int k = 0; k < n; ++k) s += A[row * n + k] * B[k * n + col];
  C[row * n + col] = s;
}

// Already contiguous in x: nothing to gain.
__global__ void good(int n, const float *a, float *c) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && j < n) c[i * n + j] = a[i * n + j];
}

// Synchronizing threads: which thread gets which item matters.
__global__ void barrier(int n, const float *a, float *c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  __syncthreads();
  if (i < n && j < n) c[i * n + j] = a[i * n + j];
}

// Two nested grid-stride loops, rows in x outside, columns in y inside.
__global__ void scale_rows_x(int rows, int cols, const float *s, const float *x, float *y) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += blockDim.x * gridDim.x)
    for (int c = blockIdx.y * blockDim.y + threadIdx.y; c < cols; c += blockDim.y * gridDim.y)
      y[r * cols + c] = s[r] * x[r * cols + c];
}
