// Global atomics on byte-indexed bins (smem_privatized_atomics applies).
__global__ void histogram(int n, const unsigned char *data, unsigned *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}
