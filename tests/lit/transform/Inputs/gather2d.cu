// Stores contiguous in x whose values read elements strided in x and
// contiguous in y (smem_transpose_staging's gather form applies).

// A transpose written from the output's side: out is rows x cols, in cols x rows.
__global__ void transpose_read(int rows, int cols, const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[y * cols + x] = in[x * rows + y];
}

// A matrix plus its transpose: one read as the store goes, one across.
__global__ void add_transpose(int n, const double *a, double *b) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  b[row * n + col] = 0.5 * (a[row * n + col] + a[col * n + row]);
}

// The read across is made only under a condition: refused.
__global__ void lower_only(int n, const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) out[y * n + x] = x < y ? in[x * n + y] : 0.0f;
}
