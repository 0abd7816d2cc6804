// A warp-per-row variant of tests/gpu_apps/rowsum.cu's row_sum (eight rows
// per 256-thread block), stored as a launch-changing variant by
// tests/lit/gpu/launch-adapter.test.
__global__ void row_sum(int rows, int cols, const float *x, float *y) {
  unsigned lane = threadIdx.x % 32;
  int r = blockIdx.x * 8 + threadIdx.x / 32;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = lane; c < cols; c += 32)
    s += x[(size_t)r * cols + c];
  for (int o = 16; o > 0; o /= 2)
    s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) y[r] = s;
}
