// Kernels that put their work in __device__ helpers or write their loops
// as while loops.
#include <cuda_runtime.h>

__device__ float dot(const float *a, const float *b, int n) {
  float s = 0.0f;
  for (int j = 0; j < n; ++j)
    s += a[j] * b[j];
  return s;
}

// A matrix-vector product whose row loop is a helper's.
__global__ void helper_matvec(int rows, int n, const float *A, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) y[i] = dot(A + (size_t)i * n, x, n);
}

__device__ __forceinline__ float square(float v) { return v * v; }

__device__ void store_norm(float *out, const float *a, int n) {
  float acc = 0.0f;
  for (int j = 0; j < n; ++j)
    acc += square(a[j]);
  *out = sqrtf(acc);
}

// Row norms through a helper that calls a helper and stores through a pointer.
__global__ void helper_norms(int rows, int n, const float *A, float *norms) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  store_norm(norms + r, A + (size_t)r * n, n);
}

__device__ float gelu(float v) { return 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v))); }

// An element-wise map through a helper, in a grid-stride loop.
__global__ void helper_map(int n, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = gelu(x[i]);
}

// A row sum written as a while loop.
__global__ void while_rowsum(const double *m, double *out, int rows, int cols) {
  int r = threadIdx.x + blockIdx.x * blockDim.x;
  if (r >= rows) return;
  double s = 0;
  int c = 0;
  while (c < cols) {
    s += m[r * cols + c];
    c++;
  }
  out[r] = s;
}

__device__ float first_negative(const float *a, int n) {
  for (int j = 0; j < n; ++j)
    if (a[j] < 0) return a[j];
  return 0.0f;
}

// A helper that returns from inside its loop: not inlined.
__global__ void helper_early_return(int rows, int n, const float *A, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) y[i] = first_negative(A + (size_t)i * n, n);
}

__device__ int getGlobalIdx_1D_1D() { return blockIdx.x * blockDim.x + threadIdx.x; }

__device__ inline float relu(float v) { return v > 0.f ? v : 0.f; }

// The global index from a helper, as course material writes it, and an
// element-wise helper in the row loop.
__global__ void helper_index(const float *a, float *out, int rows, int cols) {
  int r = getGlobalIdx_1D_1D();
  if (r < rows) {
    float s = 0;
    for (int c = 0; c < cols; ++c)
      s += relu(a[r * cols + c]);
    out[r] = s;
  }
}

__device__ void add_to(float &acc, float v) { acc += v; }

// A row sum a helper adds to through a reference: as written, lanes would
// each add to their own copy of `s`; inlined, it is an accumulation.
__global__ void helper_reference(int rows, int n, const float *A, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  float s = 0;
  for (int j = 0; j < n; ++j)
    add_to(s, A[i * n + j]);
  y[i] = s;
}
