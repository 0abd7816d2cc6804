// A thread per item of four elements, held in a local struct: the struct's
// elements are thread-private (every lane updates its own copy), while the
// stores to `y` happen once per element.
struct Quad {
  float e[4];
};

__global__ void clamp_quads(const float *x, float *y, int n, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Quad q;
    for (int k = 0; k < 4; ++k)
      q.e[k] = x[4 * i + k];
    if (q.e[0] > hi) q.e[0] = hi;
    for (int k = 0; k < 4; ++k)
      y[4 * i + k] = q.e[k];
  }
}

// A loop over a long row: lanes share it.
__global__ void row_max(const float *x, float *y, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = x[r * 64];
    for (int c = 1; c < 64; ++c)
      m = fmaxf(m, x[r * 64 + c]);
    y[r] = m;
  }
}
