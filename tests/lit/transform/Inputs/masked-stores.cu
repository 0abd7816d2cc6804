// Streams stored behind a data-dependent branch, which vectorized_loads
// stores through a mask of the items that stored; and the form it refuses.

// An updated stream stored for some items only (a clamp in place).
__global__ void clamp_some(int n, float *x, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (x[i] > hi) x[i] = hi;
  }
}

// A written stream stored for some items only, never read: its vector is
// not loaded (a ReLU's gradient, zeroed where the input is not positive).
__global__ void relu_backward(int n, const float *x, float *dx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (x[i] <= 0.0f) dx[i] = 0.0f;
}

// Stored on both sides of a branch: twice in the text, so on launches whose
// pointers differ; every item stores, so no mask.
__global__ void leaky_relu(int n, const float *x, float *y, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (x[i] > 0.0f)
      y[i] = x[i];
    else
      y[i] = a * x[i];
  }
}

// Read behind a branch only, by a compound store, and written on the other
// side: every item accesses x, so its vector may be loaded (a dropout).
__global__ void dropout_inplace(int n, float *x, const float *r, float p, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (r[i] < p)
    x[i] = 0.0f;
  else
    x[i] *= scale;
}

// Read in one arm of `?:` only, and stored by every item.
__global__ void dropout_select(int n, float *x, const float *r, float p, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = r[i] < p ? 0.0f : x[i] * scale;
}

// A stream read only behind the branch stays scalar; the updated one is
// read first on every item.
__global__ void clamp_copy(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (y[i] > 0.0f) y[i] = x[i];
}

// Read after a store some items make: the vector is loaded first, so the
// others read what memory holds.
__global__ void store_then_read(int n, const float *x, float *y, float *z, float t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (x[i] > t) y[i] = t;
    z[i] = y[i] + x[i];
  }
}

// One-byte elements: 16 items per thread, 16 bits of mask.
__global__ void mark_negative(int n, const signed char *x, signed char *flags) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] < 0) flags[i] = 1;
}

// Refused: the compound store reads y only where m holds, and no read of y
// runs on every item, so a vector would read elements the kernel does not.
__global__ void count_some(int n, const int *m, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && m[i] > 0) y[i] += 1.0f;
}
