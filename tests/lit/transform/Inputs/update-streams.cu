// Streams read and then stored at the thread's own element (updated in
// place), which vectorized_loads loads as a vector, updates per item and
// stores back; and the forms it refuses.

// A read stream and an updated one.
__global__ void axpy_update(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// A compound store of 8-byte elements (2 per 16-byte vector).
__global__ void accumulate(int n, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] += x[i] * x[i];
}

// Only an updated stream, and a written one stored first though it is the
// later parameter: the vectors are stored in the statements' order.
__global__ void scale_keep(int n, int *y, int *out, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int old = y[i];
    out[i] = old;
    y[i] = old * k + 1;
  }
}

// A read behind a branch (`?:`) of a stream read on every item: its element
// comes from the vector too (an in-place ReLU).
__global__ void relu_inplace(int n, float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

// Read after a store, and updated after another stream's store: vectorized
// on launches whose stream pointers differ (the body touches no other
// memory, so nothing else can alias an item's elements).
__global__ void sgd_momentum(float *w, float *vel, const float *g, float lr, float mu, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    vel[i] = mu * vel[i] + g[i];
    w[i] -= lr * vel[i];
  }
}

// Stored twice, read after each store, and a stream first stored (z: its
// vector is not loaded).
__global__ void store_twice(int n, const float *x, float *y, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = x[i] * 2.0f;
  z[i] = y[i] + 1.0f;
  y[i] += z[i];
}

// Refused: the body also reads lrs[0], which a store of an item could write.
__global__ void sgd_table(float *w, float *vel, const float *g, const float *lrs, float mu, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    vel[i] = mu * vel[i] + g[i];
    w[i] -= lrs[0] * vel[i];
  }
}

// Refused: elements of 4 and 8 bytes, which distinct pointers do not keep apart.
__global__ void mixed_sizes(int n, float *w, double *acc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    acc[i] = acc[i] * 2.0;
    w[i] += (float)acc[i];
  }
}

// Refused: a global variable the host may have passed as a pointer too.
__device__ float scale;
__global__ void global_scale(int n, float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = x[i];
    x[i] = y[i] * scale;
  }
}
