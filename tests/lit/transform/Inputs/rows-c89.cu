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

// A temporary declared first that each iteration sets before reading it:
// it belongs to the iteration.
__global__ void row_norms(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x, j;
  float sum = 0.0f, term;
  if (r >= rows) return;
  for (j = 0; j < cols; j++) {
    term = x[r * cols + j];
    term *= term;
    sum += term;
  }
  y[r] = sum;
}

// The temporary is read before the iteration sets it (the previous
// iteration's value), or after the loop: it is no temporary.
__global__ void row_carried(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x, j;
  float sum = 0.0f, prev = 0.0f;
  if (r >= rows) return;
  for (j = 0; j < cols; j++) {
    sum += prev;
    prev = x[r * cols + j];
  }
  y[r] = sum;
}
__global__ void row_last_term(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x, j;
  float sum = 0.0f, term;
  if (r >= rows) return;
  for (j = 0; j < cols; j++) {
    term = x[r * cols + j];
    sum += term;
  }
  y[r] = sum - term;
}
