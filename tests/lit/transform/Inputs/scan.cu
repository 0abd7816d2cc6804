// Running accumulations that each iteration reads (split_loop_across_warp
// shares them as scans across the lanes).

// Row-wise cumulative sums of integers.
__global__ void cumsum_int(int rows, int cols, const int *x, long long *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  long long s = 0;
  for (int c = 0; c < cols; ++c) {
    s += x[r * cols + c];
    y[(size_t)r * cols + c] = s;
  }
}

// A running maximum, from the row's first element, and the row's total
// maximum after the loop.
__global__ void cummax(int rows, int cols, const float *x, float *y, float *last) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = x[(size_t)r * cols];
    for (int c = 1; c <= cols - 1; ++c) {
      m = fmaxf(m, x[(size_t)r * cols + c]);
      y[(size_t)r * cols + c] = 2.0f * m;
    }
    last[r] = m;
  }
}

// A normalised cumulative distribution: the scan's values scaled.
__global__ void cdf(int rows, int cols, const float *p, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) {
    s = s + p[r * cols + c];
    out[r * cols + c] = s / cols;
  }
}
