// Kernels whose block shares its row by a block-stride loop
// (c = threadIdx.x; c < N; c += blockDim.x): their thread-per-item form puts
// the row in blockIdx.y and each element on a thread of its own.

// Each row scaled by its own factor, one block per row.
__global__ void scale_rows(int cols, const float *x, const float *s, float *y) {
  int row = blockIdx.x;
  float f = s[row];
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[row * cols + c] = x[row * cols + c] * f;
}

// A running sum carried from one item of a thread to its next: no form.
__global__ void row_running(int cols, const float *x, float *y) {
  float acc = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    acc += x[blockIdx.x * cols + c];
    y[blockIdx.x * cols + c] = acc;
  }
}
