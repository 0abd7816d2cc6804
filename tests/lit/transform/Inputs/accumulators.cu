// Kernels that accumulate straight into their output in memory, as naive
// code often does: the element set first, then added to in a loop.

// A matrix product: C's element zeroed, then the dot product added to it.
__global__ void acc_matmul(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    C[row * n + col] = 0.0f;
    for (int k = 0; k < n; ++k)
      C[row * n + col] += A[row * n + k] * B[k * n + col];
  }
}

// Row sums of doubles, C-style: one thread per row, a declaration between
// the store and the loop, the element also read after the loop.
__global__ void acc_rows(const double *x, double *y, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int j;
  if (r >= rows) return;
  y[r] = 0;
  const double *row = x + (size_t)r * n;
  for (j = 0; j < n; j++)
    y[r] = y[r] + row[j];
  y[r] = y[r] / n;
}

// A per-filter sum over a batch and its spatial positions (two loops).
__global__ void acc_nested(const float *delta, float *sums, int batch, int filters, int spatial) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= filters) return;
  int b, k;
  sums[i] = 0;
  for (b = 0; b < batch; ++b)
    for (k = 0; k < spatial; ++k)
      sums[i] += delta[(b * filters + i) * spatial + k];
}

// Not kept in a register: the loop reads another element of y.
__global__ void acc_neighbour(const float *x, float *y, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < 1 || r >= rows) return;
  y[r] = 0;
  for (int j = 0; j < n; ++j)
    y[r] += x[r * n + j] * y[r - 1];
}

// Not kept in a register: the loop writes other memory too.
__global__ void acc_other_store(const float *x, float *y, float *z, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  y[r] = 0;
  for (int j = 0; j < n; ++j) {
    y[r] += x[r * n + j];
    z[r * n + j] = y[r];
  }
}

// Not kept in a register: the loop reads y's buffer through another pointer.
__global__ void acc_through_alias(float *y, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float *first = y;
  y[r] = 0;
  for (int j = 0; j < n; ++j)
    y[r] += first[j];
}

// A linear layer with a bias and a ReLU: each output's sum starts from its
// column's bias, read from memory after the bounds check.
__global__ void acc_bias(const float *A, const float *W, const float *bias, float *out, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = bias[col];
  for (int k = 0; k < K; ++k)
    acc += A[row * K + k] * W[k * N + col];
  out[row * N + col] = acc > 0.0f ? acc : 0.0f;
}
