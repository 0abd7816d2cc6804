// Cache-hinted loads and stores on packed 128-bit vectors and scalars.
__global__ void stream_int4(const int4 *in, int4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) __stcs(out + i, __ldcs(in + i));
}

__global__ void stream_float4(const float4 *in, float4 *out, const float *scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = __ldcs(in + i);
  float s = __ldcg(scale);
  v.x *= s, v.y *= s, v.z *= s, v.w *= s;
  __stwt(out + i, v);
}

__global__ void last_use(const uint4 *in, uint4 *out, const double2 *d, double *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __stcg(out + i, __ldlu(in + i));
  double2 v = __ldcv(d + i);
  __stwb(sum + i, v.x + v.y + __ldca(sum + i));
}
