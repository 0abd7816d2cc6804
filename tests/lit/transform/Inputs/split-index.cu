// 1-D kernels that split their index into a row and a column.

// A product written over a flattened output: row and column from / and %.
__global__ void mm_flat(float *C, const float *A, const float *B, int M, int K, int N) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= M * N) return;
  int row = id / N;
  int col = id % N;
  float acc = 0.0f;
  for (int e = 0; e < K; ++e)
    acc += A[row * K + e] * B[e * N + col];
  C[row * N + col] = acc;
}

// A transpose whose read is the thread's own element.
__global__ void transpose_flat(const float *in, float *out, int rows, int cols) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < rows * cols) {
    int r = idx / cols;
    int c = idx % cols;
    out[c * rows + r] = in[idx];
  }
}

// The split written inline, the count apart from the width: the guard on
// the index stays, and the rows are those the count reaches.
__global__ void scale_transpose(const float *in, float *out, float alpha, int n, int rows, int cols) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) out[(i % cols) * rows + i / cols] = alpha * in[i];
}

// Unsigned, the column written as the index less the row's start, the row
// and column declared in the work block.
__global__ void mm_rows(const float *A, const float *B, float *C, unsigned M, unsigned K, unsigned N) {
  unsigned tid = threadIdx.x + blockIdx.x * blockDim.x;
  if (tid < M * N) {
    unsigned row = tid / N;
    unsigned col = tid - row * N;
    float s = 0;
    for (unsigned k = 0; k < K; k++)
      s += A[row * K + k] * B[k * N + col];
    C[tid] = s;
  }
}

// A product over a flattened output in a grid-stride loop: its form runs
// one item per thread, and that form's items split.
__global__ void mm_gs(const float *A, const float *B, float *C, int M, int K, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < M * N; i += blockDim.x * gridDim.x) {
    int row = i / N;
    int col = i % N;
    float s = 0.0f;
    for (int k = 0; k < K; ++k)
      s += A[row * K + k] * B[k * N + col];
    C[i] = s;
  }
}

// A transpose in a grid-stride loop: its items store column-major
// positions of their row and column, distinct since the row is below rows.
__global__ void transpose_gs(const float *in, float *out, int rows, int cols) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += blockDim.x * gridDim.x) {
    int r = i / cols, c = i % cols;
    out[c * rows + r] = in[i];
  }
}

// The loop's bound does not bound the row by the stride of the store:
// two items may store to one element.
__global__ void transpose_gs_overlap(const float *in, float *out, int n, int rows, int cols) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[(i % cols) * rows + i / cols] = in[i];
}

// Two divisors: no one width.
__global__ void two_widths(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i / 4] + in[i % 8];
}

// A store before the guard runs for every thread the original launched.
__global__ void store_first(const float *in, float *out, int *count, int n, int w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  count[i % w] = 0;
  if (i >= n) return;
  out[(i % w) * (n / w) + i / w] = in[i];
}

// No bound: the original's threads are all its items.
__global__ void unbounded(const float *in, float *out, int w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[(i % w) * w + i / w] = in[i];
}
