// Build-overhead project: runs every operation once on small buffers so the
// program links against all translation units (its output is not checked).
#include "ops.h"

#include <cstdio>
#include <cuda_runtime.h>

int main() {
  const int n = 1 << 16, rows = 256, cols = n / rows;
  float *a, *b, *c, *s;
  int *idx, *hist;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&c, n * sizeof(float));
  cudaMalloc(&s, sizeof(float));
  cudaMalloc(&idx, n * sizeof(int));
  cudaMalloc(&hist, 64 * sizeof(int));
  cudaMemset(a, 0, n * sizeof(float));
  cudaMemset(b, 0, n * sizeof(float));
  cudaMemset(idx, 0, n * sizeof(int));
  vec_add(n, a, b, c);
  scale(n, 2.0f, c);
  relu(n, a, c);
  sigmoid(n, a, c);
  clamp(n, -1.0f, 1.0f, c);
  axpby(n, 2.0f, a, 0.5f, c);
  dot(n, a, b, s);
  gather(n, idx, a, c);
  scatter_add(n, idx, a, c);
  histogram(n, idx, 64, hist);
  stencil3(n, a, c);
  poly(n, a, c);
  matvec(rows, cols, a, b, c);
  transpose(n, rows, cols, a, c);
  conv1d(n, 7, b, a, c);
  softmax_rows(rows, cols, a, c);
  thrust_sort(n, c);
  float sq = thrust_sum_squares(n, a);
  cub_sum(n, a, s);
  cub_block_scan(n, idx, idx);
  cg_reduce(n, a, s);
  cg_normalize(n, c, s);
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s (sum of squares %g)\n", cudaGetErrorString(e), sq);
  return e == cudaSuccess ? 0 : 1;
}
