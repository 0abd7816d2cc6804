// Loops the broadcast form of smem_tiling refuses.

// The loop stores to memory at every step.
__global__ void prefix_store(int n, const float *x, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j < n; ++j) {
    s += x[j];
    out[i] = s;
  }
}

// Each thread's range ends at its own index.
__global__ void prefix(int n, const float *x, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j <= i; ++j)
    s += x[j];
  out[i] = s;
}

// The element is read only when a condition holds, so a tile could load
// elements the thread never reads.
__global__ void masked(int n, const int *keep, const float *x, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j < n; ++j)
    if (keep[i] == j) s += x[j];
  out[i] = s;
}

// The array is written elsewhere in the kernel.
__global__ void rewritten(int n, float *x, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int j = 0; j < n; ++j)
    s += x[j];
  x[i] = 0.0f;
  out[i] = s;
}

// The loop leaves early.
__global__ void first_negative(int n, const float *x, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int found = -1;
  for (int j = 0; j < n; ++j)
    if (x[j] < 0.0f) {
      found = j;
      break;
    }
  out[i] = found;
}
