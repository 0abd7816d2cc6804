// Planted bad variant: the shared-memory reduction without barriers.
__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  for (int w = 128; w > 0; w /= 2)
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
