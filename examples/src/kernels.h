// Host launchers of the example's kernels (one translation unit each).
#pragma once

#include <cuda_runtime.h>

// y[i] = a * x[i] + y[i] for i < n.
void launch_saxpy(int n, float a, const float *x, float *y, cudaStream_t s);
// *out = sum of x[0..n) (out must be zeroed first).
void launch_reduce_sum(int n, const float *x, float *out, cudaStream_t s);
// C = A * B for row-major n x n matrices.
void launch_matmul(int n, const float *a, const float *b, float *c, cudaStream_t s);
