// Stores strided in x, contiguous in y (smem_transpose_staging applies).
__global__ void transpose(int rows, int cols, const float *in, float *out) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
