// Thread per output with a k loop over (row, k) and (k, col) operands (smem_tiling applies).
__global__ void matmul(int n, const float *a, const float *b, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}
