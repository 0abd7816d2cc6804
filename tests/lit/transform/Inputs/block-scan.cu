// A block-wise inclusive prefix-OR of flags: Hillis-Steele, a barrier per
// step, the read guarded by an if.
__global__ void flag_prefix(const unsigned *flags, unsigned *seen, int n) {
  __shared__ unsigned s[1024];
  const int lane = threadIdx.x;
  const int g = blockDim.x * blockIdx.x + lane;
  s[lane] = g < n ? flags[g] : 0u;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d <<= 1) {
    unsigned v = 0;
    if (lane >= d) v = s[lane - d];
    __syncthreads();
    s[lane] |= v;
    __syncthreads();
  }
  if (g < n) seen[g] = s[lane];
}
