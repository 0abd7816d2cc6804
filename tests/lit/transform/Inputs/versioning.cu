// Kernels whose integer parameters bound loops or divide (value_versioning),
// and kernels it must refuse.
#define TAP(dy, dx) w[((dy) + half) * k + (dx) + half]

// A k x k filter: k bounds both loops (through `half`) and is read in a macro.
__global__ void filter2d(const float *in, const float *w, float *out, int width, int height, int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  int half = k / 2;
  float acc = 0.0f;
  for (int dy = -half; dy <= half; ++dy)
    for (int dx = -half; dx <= half; ++dx) {
      int yy = y + dy, xx = x + dx;
      if (yy >= 0 && yy < height && xx >= 0 && xx < width) acc += TAP(dy, dx) * in[yy * width + xx];
    }
  out[y * width + x] = acc;
}

// A bias per channel of an NCHW tensor: hw and c divide.
__global__ void add_bias(float *x, const float *bias, long n, unsigned hw, unsigned c) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) x[i] += bias[(i / hw) % c];
}

// A block reduction over rows of `per` elements per thread: its shared
// array is declared once, before both versions.
__global__ void row_sums(const float *x, float *out, int cols, int per) {
  __shared__ float part[256];
  float s = 0.0f;
  for (int j = 0; j < per; ++j)
    s += x[(size_t)blockIdx.x * cols + j * blockDim.x + threadIdx.x];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) part[threadIdx.x] += part[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = part[0];
}

// A moving sum whose taps are a loop bound.
__global__ void moving_sum(const float *x, float *y, int n, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int t = 0; t < taps; ++t)
    if (i + t < n) acc += x[i + t];
  y[i] = acc;
}

// Refused: `taps` is assigned.
__global__ void clamped_taps(const float *x, float *y, int n, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (taps > 8) taps = 8;
  float acc = 0.0f;
  for (int t = 0; t < taps; ++t)
    acc += x[i + t];
  if (i < n) y[i] = acc;
}

// Refused: the only loop is a grid-stride loop, whose trip count depends on
// the thread.
__global__ void scale(float *x, int n, float a) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    x[i] *= a;
}

// Refused: a label.
__global__ void labelled(float *x, int n, int reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) goto done;
  for (int r = 0; r < reps; ++r)
    x[i] *= 0.5f;
done:
  return;
}

// Refused: a directive in the body.
__global__ void directive(float *x, int n, int reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef HALVE
  for (int r = 0; r < reps; ++r)
    x[i] *= 0.5f;
#endif
  if (i < n) x[i] += 1.0f;
}

// Refused: a shared array in a nested block.
__global__ void nested_shared(float *x, int reps) {
  if (blockIdx.x == 0) {
    __shared__ float s[32];
    s[threadIdx.x % 32] = x[threadIdx.x];
    for (int r = 0; r < reps; ++r)
      x[threadIdx.x] += s[(threadIdx.x + r) % 32];
  }
}

// Refused: a shared array sized by a local declared before it.
__global__ void sized_shared(float *x, int reps) {
  const int size = 64;
  __shared__ float s[size];
  s[threadIdx.x % size] = x[threadIdx.x];
  for (int r = 0; r < reps; ++r)
    x[threadIdx.x] += s[(threadIdx.x + r) % size];
}
