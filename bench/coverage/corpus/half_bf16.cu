// Reduced precision: __half/__half2 and __nv_bfloat16/__nv_bfloat162
// arithmetic, conversions, fused multiply-add and comparisons.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__global__ void hgelu(const __half2 *x, __half2 *y, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  float2 f = __half22float2(x[i]);
  f.x = 0.5f * f.x * (1.f + tanhf(0.79788456f * (f.x + 0.044715f * f.x * f.x * f.x)));
  f.y = 0.5f * f.y * (1.f + tanhf(0.79788456f * (f.y + 0.044715f * f.y * f.y * f.y)));
  y[i] = __float22half2_rn(f);
}

__global__ void hfma_chain(const __half *a, const __half *b, __half *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = __hfma(a[i], b[i], __hmax(c[i], __float2half(0.f)));
}

__global__ void bf16_axpby(__nv_bfloat162 alpha, const __nv_bfloat162 *x, __nv_bfloat162 beta, __nv_bfloat162 *y,
                           int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) y[i] = __hfma2(alpha, x[i], __hmul2(beta, y[i]));
}

__global__ void bf16_to_float(const __nv_bfloat16 *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __hisnan(in[i]) ? 0.f : __bfloat162float(in[i]);
}

__global__ void mixed_dot(const __half *a, const __nv_bfloat16 *b, float *out, int n) {
  float s = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    s += __half2float(a[i]) * __bfloat162float(b[i]);
  atomicAdd(out, s);
}
