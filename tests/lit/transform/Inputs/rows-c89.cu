// Row kernels written C-style: locals declared first, one loop variable
// shared by two loops that each start by setting it.
__global__ void row_scale(const float *x, float *y, int rows, int cols) {
  int r, j;
  float s;
  r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  s = 0.0f;
  for (j = 0; j < cols; j++)
    s += x[r * cols + j];
  for (j = 0; j < cols; j++)
    y[r * cols + j] = x[r * cols + j] / s;
}

// The loop's last value of j is read after it: not a counted loop of its own.
__global__ void row_last(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x, j;
  float s = 0.0f;
  if (r >= rows) return;
  for (j = 0; j < cols; j++)
    s += x[r * cols + j];
  y[r] = s / j;
}
