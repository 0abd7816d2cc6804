// A box blur whose radius is a parameter: the thread's work under
// `if (col < width && row < height) { ... }`, neighbours outside the image
// skipped with `continue`, the mean over the neighbours that exist.
__global__ void box_blur(const float *src, float *dst, int width, int height, int radius) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height) {
    float sum = 0.0f;
    int count = 0;
    for (int dr = -radius; dr <= radius; ++dr) {
      for (int dc = -radius; dc <= radius; ++dc) {
        int r = row + dr, c = col + dc;
        if (r < 0 || r >= height || c < 0 || c >= width) continue;
        sum += src[r * width + c];
        ++count;
      }
    }
    dst[row * width + col] = sum / count;
  }
}
