// Image filters at the image's borders, written C-style (the sizes in
// macros, loop counters declared first): pixels past a border skipped, or
// read as the border's pixels, each coordinate clamped with min and max.
#define W 1000
#define H 77
#define R 4

// A horizontal box blur over the pixels of the row that exist.
__global__ void blur_skip(const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int t;
  float acc = 0.0f;
  if (x >= W || y >= H) return;
  for (t = -R; t <= R; t++) {
    int xx = x + t;
    if (xx >= 0 && xx < W) acc += in[y * W + xx];
  }
  out[y * W + x] = acc;
}

// A horizontal box blur: x clamped.
__global__ void blur_rows(const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int t;
  float acc = 0.0f;
  if (x >= W || y >= H) return;
  for (t = -R; t <= R; t++) {
    int xx = min(max(x + t, 0), W - 1);
    acc += in[y * W + xx];
  }
  out[y * W + x] = acc / (2 * R + 1);
}

// A weighted 2-D filter of run-time radius: both coordinates clamped, the
// bounds on the other side of the calls.
__global__ void filter2d(const float *in, const float *w, float *out, int width, int height, int radius) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    float acc = 0.0f;
    for (int dy = -radius; dy <= radius; ++dy)
      for (int dx = -radius; dx <= radius; ++dx) {
        int yy = max(0, min(height - 1, y + dy));
        int xx = max(0, min(width - 1, x + dx));
        acc += w[(dy + radius) * (2 * radius + 1) + dx + radius] * in[yy * width + xx];
      }
    out[y * width + x] = acc;
  }
}

// The same row read clamped and, for the pixel itself, unclamped: the tile
// cannot hold both.
__global__ void mixed_clamps(const float *in, float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float acc = 0.0f;
  for (int t = -3; t <= 3; ++t)
    acc += in[y * width + min(max(x + t, 0), width - 1)];
  out[y * width + x] = acc - 7.0f * in[y * width + x];
}

// Each row clamped to its own length, which threads of other rows do not
// share: no clamp the tile can apply.
__global__ void ragged_rows(const float *in, const int *len, float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float acc = 0.0f;
  for (int t = -3; t <= 3; ++t)
    acc += in[y * width + min(max(x + t, 0), len[y] - 1)];
  out[y * width + x] = acc;
}

// A batch of images, one per blockIdx.z, each filtered with clamped
// coordinates: the image's first row is added outside the clamp.
__global__ void batch_blur(const float *in, float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, img = blockIdx.z, dy, dx;
  float acc = 0.0f;
  if (x >= width || y >= height) return;
  for (dy = -2; dy <= 2; dy++)
    for (dx = -R; dx <= R; dx++)
      acc += in[(img * height + min(max(y + dy, 0), height - 1)) * width + min(max(x + dx, 0), width - 1)];
  out[(img * height + y) * width + x] = acc;
}
