// Thread per output whose work sits under its bounds check, `if (...) { ... }`.
__global__ void matmul(const float *a, const float *b, float *c, int n) {
  int x = threadIdx.x + blockDim.x * blockIdx.x;
  int y = threadIdx.y + blockDim.y * blockIdx.y;
  if ((x < n) && (y < n)) {
    float sum = 0;
    for (int i = 0; i < n; i++)
      sum += a[y * n + i] * b[i * n + x];
    c[y * n + x] = sum;
  }
}
