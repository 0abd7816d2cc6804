// Input of cubin_test (globals a kernel may use): each kernel reaches a
// different module global, directly, through a pointer's initialiser, through
// the constant bank, or not at all; `prints` makes string-literal globals.
#include <cstdio>

__device__ float table[64];
__constant__ float coef[16];
__device__ int counter;
__device__ int *indirect = &counter;
__device__ double other_data[32];

__global__ void uses_table(float *y) { y[threadIdx.x] = table[threadIdx.x % 64] + 1.f; }
__global__ void prints(int v) { printf("value %d\n", v); }
__global__ void uses_indirect() { atomicAdd(indirect, 1); }
__global__ void uses_constant(float *y) { y[threadIdx.x] = coef[threadIdx.x % 16]; }
__global__ void other_kernel(double *y) {
  y[threadIdx.x] = other_data[threadIdx.x % 32];
  other_data[threadIdx.x % 32] += 1.0;
}
__global__ void plain(float *y) { y[threadIdx.x] *= 2.f; }
