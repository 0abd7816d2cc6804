// Square matrix products written C-style: sizes in macros, the loop's
// variable declared before the loop with the accumulator.
#define N 512
#define IDX(r, c) ((r) * N + (c))

__global__ void mm_macro(const int *a, const int *b, int *c) {
  int k, sum = 0;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < N && col < N) {
    for (k = 0; k < N; k++)
      sum += a[IDX(row, k)] * b[IDX(k, col)];
    c[IDX(row, col)] = sum;
  }
}

// A table declared with the accumulator cannot be declared apart.
__global__ void mm_table(const float *a, const float *b, float *c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  float acc = 0.0f, scale[2] = {0.5f, 2.0f};
  if (row >= n || col >= n) return;
  for (int k = 0; k < n; ++k)
    acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc * scale[1];
}
