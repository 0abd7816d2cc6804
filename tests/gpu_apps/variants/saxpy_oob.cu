// Planted bad variant: correct results, plus a write past the end of y
// (inside the allocation granule, so only the sanitizer sees it).
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
  if (i == n - 1) y[n + 8] = 0.0f;
}
