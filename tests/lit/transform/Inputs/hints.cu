// Kernels whose loops carry unroll hints, as tuned code writes them: the
// structural transforms read them through their normal form (hints dropped).
__global__ void hint_rowdot(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ out,
                            int rows, int d) {
  const int r = blockDim.x * blockIdx.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
#pragma unroll 4
    for (int k = 0; k < d; k++) s += __ldg(&a[r * d + k]) * __ldg(&b[r * d + k]);
    out[r] = s;
  }
}

__global__ void hint_fir(const float *in, const float *taps, float *out, int n, int ntaps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  #pragma unroll
  for (int t = 0; t < ntaps; ++t) {
    int j = i + t - ntaps / 2;
    if (j >= 0 && j < n) acc += taps[t] * in[j];
  }
  out[i] = acc;
}

__global__ void hint_matmul(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    float sum = 0.0f;
#pragma unroll 8
    for (int k = 0; k < n; ++k) sum += A[row * n + k] * B[k * n + col];
    C[row * n + col] = sum;
  }
}

__global__ void hint_relu(const float *x, float *y, int n) {
#pragma unroll 2
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = x[i] > 0 ? x[i] : 0;
}

// The loop keeps the last element it reads, which no lane split computes.
__global__ void hint_last(const float *x, float *y, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float last = 0;
#pragma unroll 4
    for (int j = 0; j < n; ++j) last = x[r * n + j];
    y[r] = last;
  }
}

// Two hints with a comment between them: all three lines go.
__global__ void hint_commented(const float *x, float *y, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0;
#pragma unroll 4
    // the row's elements
#pragma clang loop vectorize(enable)
    for (int j = 0; j < n; ++j) s += x[r * n + j];
    y[r] = s;
  }
}
