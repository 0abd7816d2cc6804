// Kernels that print, assert and trap (string literals become module
// globals such as $str, $str$1 in the cubin).
#include <cassert>
#include <cstdio>

__global__ void checked_divide(const float *num, const float *den, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  assert(den[i] != 0.f);
  out[i] = num[i] / den[i];
}

__global__ void report_negative(const int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && v[i] < 0) printf("block %d thread %d: v[%d] = %d\n", blockIdx.x, threadIdx.x, i, v[i]);
}

__global__ void guarded_index(const int *idx, const float *table, float *out, int n, int size) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (idx[i] < 0 || idx[i] >= size) {
    printf("index %d out of range [0, %d)\n", idx[i], size);
    __trap();
  }
  out[i] = table[idx[i]];
}

__global__ void plain_scale(float *v, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= s;
}
