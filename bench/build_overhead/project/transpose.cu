// Build-overhead project: naive transpose (n = rows*cols).
#include "ops.h"

__global__ void transpose_kernel(int n, int rows, int cols, const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int r = i / cols, c = i % cols;
    out[c * rows + r] = in[i];
  }
}

void transpose(int n, int rows, int cols, const float *in, float *out) {
  transpose_kernel<<<(n + 255) / 256, 256>>>(n, rows, cols, in, out);
}
