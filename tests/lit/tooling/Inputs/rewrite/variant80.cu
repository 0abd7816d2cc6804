__global__ void marked(unsigned *out) {
  out[threadIdx.x] = 0x5eed80u + helper(threadIdx.x);
}
