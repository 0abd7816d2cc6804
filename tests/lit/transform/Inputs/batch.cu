// Kernels over a batch of independent problems, one per blockIdx.z (or per
// blockIdx.y for a kernel 1-D in the idiom): the transforms that keep the
// batch's grid extent and move threads only within a block's problem apply.

// A batch of transposes written from the output's side.
__global__ void batch_transpose(int rows, int cols, const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  size_t plane = (size_t)blockIdx.z * rows * cols;
  if (x < cols && y < rows) out[plane + y * cols + x] = in[plane + x * rows + y];
}

// A batch of matrix products.
__global__ void batch_matmul(int n, const float *a, const float *b, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  const float *A = a + (size_t)blockIdx.z * n * n, *B = b + (size_t)blockIdx.z * n * n;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
      acc += A[row * n + k] * B[k * n + col];
    c[(size_t)blockIdx.z * n * n + row * n + col] = acc;
  }
}

// Row sums of a batch of matrices, one thread per row, the batch stepped
// by gridDim.z.
__global__ void batch_rowsum(int batches, int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  for (int b = blockIdx.z; b < batches; b += gridDim.z) {
    float s = 0.0f;
    for (int c = 0; c < cols; ++c)
      s += x[((size_t)b * rows + r) * cols + c];
    y[(size_t)b * rows + r] = s;
  }
}

// threadIdx.z is not a batch index: refused.
__global__ void thread_z(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[threadIdx.z * n + i] = x[threadIdx.z * n + i];
}

// A bias added to each row: the row in blockIdx.y, the column in x.
__global__ void row_bias(int cols, const float *x, const float *bias, float *y) {
  int row = blockIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < cols) y[row * cols + col] = x[row * cols + col] + bias[col];
}

// Row sums of every head's matrix, one thread per row, the head in blockIdx.y.
__global__ void head_rowsum(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    size_t base = ((size_t)blockIdx.y * rows + r) * cols;
    float s = 0.0f;
    for (int c = 0; c < cols; ++c)
      s += x[base + c];
    y[(size_t)blockIdx.y * rows + r] = s;
  }
}

// With a global index in y, blockIdx.y alone is no batch index: refused.
__global__ void y_not_batch(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) y[j * n + i] = x[j * n + i] + (float)blockIdx.y;
}
