// Block reductions under branches every thread of the block takes alike.

// One block per row, the whole body under the row's bounds check.
__global__ void row_sums(const float *a, float *sums, int rows, int cols) {
  int row = blockIdx.x;
  if (row < rows) {
    __shared__ float part[256];
    int t = threadIdx.x;
    part[t] = 0.0f;
    for (int c = t; c < cols; c += blockDim.x) part[t] += a[row * cols + c];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
      if (t < s) part[t] += part[t + s];
      __syncthreads();
    }
    if (t == 0) sums[row] = part[0];
  }
}

// One block per pair of vectors; blocks past the end leave first.
__global__ void pair_max(const float *x, const float *y, float *d, int nx, int ny, int dim) {
  const int bx = blockIdx.x, by = blockIdx.y;
  if (bx >= nx || by >= ny) return;
  __shared__ float m[128];
  m[threadIdx.x] = 0.0f;
  for (int k = threadIdx.x; k < dim; k += blockDim.x)
    m[threadIdx.x] = fmaxf(m[threadIdx.x], fabsf(x[bx * dim + k] - y[by * dim + k]));
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) m[threadIdx.x] = fmaxf(m[threadIdx.x], m[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) d[by * nx + bx] = m[0];
}

// The branch reads memory: its threads need not agree.
__global__ void loaded_guard(const float *a, const int *count, float *sums, int cols) {
  if (blockIdx.x < count[0]) {
    __shared__ float part[256];
    part[threadIdx.x] = a[blockIdx.x * cols + threadIdx.x];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
  }
}

// Threads past the end return one by one.
__global__ void thread_exit(const float *a, float *sums, int n) {
  __shared__ float part[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  part[threadIdx.x] = a[i];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}

// C89 style: the step variable is declared first and stepped by the loop
// alone; the whole block of a row past the end leaves at once.
__global__ void row_max_c89(const float *a, float *out, int rows, int cols) {
  __shared__ float m[256];
  unsigned s;
  int c, row;
  row = blockIdx.x;
  if (row >= rows) return;
  m[threadIdx.x] = a[row * cols];
  for (c = threadIdx.x; c < cols; c += blockDim.x) m[threadIdx.x] = fmaxf(m[threadIdx.x], a[row * cols + c]);
  __syncthreads();
  for (s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) m[threadIdx.x] = fmaxf(m[threadIdx.x], m[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[row] = m[0];
}

// The step variable is read after the loop: the shuffles would not leave it
// where the loop does.
__global__ void steps_used(const float *a, float *out, int *last) {
  __shared__ float m[256];
  unsigned s;
  m[threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) m[threadIdx.x] += m[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[blockIdx.x] = m[0];
    last[blockIdx.x] = s;
  }
}
