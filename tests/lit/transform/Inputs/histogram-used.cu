// The atomic's old value is used: it cannot go to a private copy.
__global__ void histogram(int n, const unsigned char *data, unsigned *bins, unsigned *old) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) old[i] = atomicAdd(&bins[data[i]], 1u);
}
