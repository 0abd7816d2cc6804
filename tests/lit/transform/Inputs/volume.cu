// Kernels indexed in x, y and z: a 7-point stencil as textbooks write it
// (unsigned indexes, the guard around the body) and an update of a box of
// nx x ny x nz values that returns outside it.
__global__ void stencil7(const float *in, float *out, unsigned int N, float c0, float c1, float c2, float c3, float c4,
                         float c5, float c6) {
  unsigned int i = blockIdx.z * blockDim.z + threadIdx.z;
  unsigned int j = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < N - 1 && j >= 1 && j < N - 1 && k >= 1 && k < N - 1) {
    out[i * N * N + j * N + k] = c0 * in[i * N * N + j * N + k] + c1 * in[i * N * N + j * N + (k - 1)] +
                                 c2 * in[i * N * N + j * N + (k + 1)] + c3 * in[i * N * N + (j - 1) * N + k] +
                                 c4 * in[i * N * N + (j + 1) * N + k] + c5 * in[(i - 1) * N * N + j * N + k] +
                                 c6 * in[(i + 1) * N * N + j * N + k];
  }
}

__global__ void box_axpy(int nx, int ny, int nz, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i >= nx || j >= ny || k >= nz) return;
  size_t at = ((size_t)k * ny + j) * nx + i;
  y[at] = a * x[at] + y[at];
}

// blockIdx.z read outside the idiom of a kernel indexed in z: no batch.
__global__ void plane_offset(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < n && j < n && k < n) y[((size_t)k * n + j) * n + i] = x[((size_t)k * n + j) * n + i] + blockIdx.z;
}
