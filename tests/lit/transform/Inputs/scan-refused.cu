// Running accumulations that are not scans the lanes can share.

// An exclusive scan: the store reads the sum before the update.
__global__ void exclusive(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) {
    y[r * cols + c] = s;
    s += x[r * cols + c];
  }
}

// A continue skips the chunk's carry.
__global__ void skipping(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) {
    s += x[r * cols + c];
    if (s > 100.0f) continue;
    y[r * cols + c] = s;
  }
}

// A subtraction: the term's sign is not the update's.
__global__ void draining(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 1000.0f;
  for (int c = 0; c < cols; ++c) {
    s -= x[r * cols + c];
    y[r * cols + c] = s;
  }
}
