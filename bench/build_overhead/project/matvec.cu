// Build-overhead project: row-per-thread matrix-vector product.
#include "ops.h"

__global__ void matvec_kernel(int n, int cols, const float *m, const float *v, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c)
    acc += m[i * cols + c] * v[c];
  y[i] = acc;
}

void matvec(int n, int cols, const float *m, const float *v, float *y) {
  matvec_kernel<<<(n + 255) / 256, 256>>>(n, cols, m, v, y);
}
