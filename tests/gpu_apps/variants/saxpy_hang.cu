// Planted bad variant: the last block never finishes (it waits for a value
// no thread writes), as a candidate whose barriers diverge would.
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x == gridDim.x - 1) {
    volatile const float *v = x;
    while (v[0] == v[0]) {
    }
  }
  if (i < n) y[i] = a * x[i] + y[i];
}
