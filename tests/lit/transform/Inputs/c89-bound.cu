// Older C style: locals declared first, assigned later. The bound `n` has
// one value, written once at the top of the body; `m` is written twice.
__global__ void scale_c89(int rows, int cols, const float *a, float *out) {
  int i, n;
  i = threadIdx.x + blockIdx.x * blockDim.x;
  n = rows * cols;
  if (i < n) out[i] = 2.0f * a[i];
}

__global__ void scale_rewritten(int rows, int cols, const float *a, float *out) {
  int i, m;
  i = threadIdx.x + blockIdx.x * blockDim.x;
  m = rows;
  if (cols > 1) m = rows * cols;
  if (i < m) out[i] = 2.0f * a[i];
}
