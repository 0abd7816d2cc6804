// Thread per column: the column's sum over the rows (a bias gradient).
__global__ void colsum(int rows, int cols, const float *dy, float *db) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r)
    s += dy[(size_t)r * cols + c];
  db[c] = s;
}
