// Products whose operands are read through pointers to the output's row or
// column, computed once before the loop, as naive code often writes them.

// A matrix product: pointers to A's row and to C's row.
__global__ void mm_rowptr(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  const float *a = A + (size_t)row * K;
  float *c = C + (size_t)row * N;
  float sum = 0.0f;
  for (int k = 0; k < K; ++k)
    sum += a[k] * B[(size_t)k * N + col];
  c[col] = sum;
}

// Attention scores per head (blockIdx.z): pointers to a query's and a key's
// rows, the second computed from the first's offset.
__global__ void scores(const float *Q, const float *Kt, float *S, int seq, int d, float scale) {
  int h = blockIdx.z;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < seq && j < seq) {
    const size_t head = (size_t)h * seq;
    const float *q = Q + (head + i) * d, *k = Kt + (head + j) * d;
    float s = 0.f;
    for (int t = 0; t < d; ++t)
      s += q[t] * k[t];
    S[(head + i) * seq + j] = s * scale;
  }
}

// The row's pointer moves after the loop.
__global__ void mm_moved(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  const float *a = A + (size_t)row * n;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k)
    sum += a[k] * B[(size_t)k * n + col];
  a += n;
  C[(size_t)row * n + col] = sum + a[0];
}
