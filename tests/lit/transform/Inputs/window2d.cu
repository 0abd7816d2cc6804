// 2-D filters whose innermost loop cannot keep a register window of four
// columns per thread (smem_tiling's stencil form, cols = 4).

// The innermost loop runs over the rows: a column is the outer loop's.
__global__ void cols_outer(const float *in, float *out, int w, int h, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < r || y < r || x >= w - r || y >= h - r) return;
  float acc = 0.0f;
  for (int dx = -r; dx <= r; ++dx)
    for (int dy = -r; dy <= r; ++dy)
      acc += in[(y + dy) * w + x + dx];
  out[y * w + x] = acc;
}

// The row read mirrored: its column steps down as t counts up.
__global__ void mirrored(const float *in, float *out, int w, int h, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < r || x >= w - r || y >= h) return;
  float acc = 0.0f;
  for (int t = 0; t < 2 * r + 1; ++t)
    acc += in[y * w + x + r - t] * (float)(t + 1);
  out[y * w + x] = acc;
}

// Two rows read at each step: the reads lie at different offsets.
__global__ void two_rows(const float *in, float *out, int w, int h, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < r || x >= w - r || y + 1 >= h) return;
  float acc = 0.0f;
  for (int t = -r; t <= r; ++t)
    acc += in[y * w + x + t] - in[(y + 1) * w + x + t];
  out[y * w + x] = acc;
}

// Doubles: the window loads four 4-byte elements at a time.
__global__ void blur_double(const double *in, double *out, int w, int h, int r) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < r || x >= w - r || y >= h) return;
  double acc = 0.0;
  for (int t = -r; t <= r; ++t)
    acc += in[y * w + x + t];
  out[y * w + x] = acc;
}

// Neighbours written out, two apart: no loop nest holds the reads.
__global__ void cross2(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 2 || y < 2 || x >= w - 2 || y >= h - 2) return;
  out[y * w + x] = in[(y - 2) * w + x] + in[(y + 2) * w + x] + in[y * w + x - 2] + in[y * w + x + 2];
}
