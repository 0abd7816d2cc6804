// A naive block reduction (interleaved tree, divergent modulo test) whose
// block sums meet in one atomicAdd.
__global__ void reduce_sum(int n, const float *x, float *out) {
  extern __shared__ float buf[];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  float v = i < (unsigned)n ? x[i] : 0.0f;
  buf[t] = v * v;
  __syncthreads();
  #pragma unroll 1
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (t % (2 * s) == 0) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, buf[0]);
}
