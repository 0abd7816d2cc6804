// Packed 128-bit vector accesses with cache hints, as bandwidth-bound
// elementwise and streaming code is written: int4/float4/uint4 loads through
// __ldg, __ldcs, __ldcg, __ldlu, __ldcv and stores through __stcs, __stcg,
// __stwb, __stwt, plus half8 data moved as uint4.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void copy_streaming_int4(const int4 *__restrict__ in, int4 *__restrict__ out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  for (; i < n; i += size_t(gridDim.x) * blockDim.x)
    __stcs(out + i, __ldcs(in + i));
}

__global__ void axpy_float4(float a, const float4 *x, float4 *y, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 xv = __ldg(x + i), yv = __ldcg(y + i);
  yv.x += a * xv.x, yv.y += a * xv.y, yv.z += a * xv.z, yv.w += a * xv.w;
  __stcg(y + i, yv);
}

__global__ void last_use_and_volatile(const float4 *once, const uint4 *flags, float4 *out, uint4 *flag_out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = __ldlu(once + i);
  uint4 f = __ldcv(flags + i);
  __stwt(out + i, v);
  __stwb(flag_out + i, f);
}

// Eight halves per 128-bit transaction.
__global__ void scale_half8(const uint4 *in, uint4 *out, __half s, int n8) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n8) return;
  uint4 raw = __ldcs(in + i);
  __half2 *h = reinterpret_cast<__half2 *>(&raw);
  __half2 s2 = __half2half2(s);
#pragma unroll
  for (int k = 0; k < 4; ++k)
    h[k] = __hmul2(h[k], s2);
  __stcs(out + i, raw);
}

__global__ void reduce_double2(const double2 *in, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double2 v = __ldca(in + i);
    atomicAdd(out, v.x + v.y);
  }
}

__global__ void gather_longlong2(const longlong2 *table, const int *idx, longlong2 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __ldg(table + __ldcs(idx + i));
}

void launch_vec128(const int4 *a, int4 *b, size_t n, cudaStream_t s) {
  copy_streaming_int4<<<256, 256, 0, s>>>(a, b, n);
}
