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

// `taps` is assigned: the local function's parameter is a copy, as the
// kernel's was, so the versioned call starts from the captured value.
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

// A label, a directive and shared arrays in nested blocks: the body is
// written once, so each means what it meant, and each shared array is
// allocated once for both calls.
__global__ void written_once(const float *x, float *y, int n, int reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  if (blockIdx.x % 2 == 0) {
    __shared__ float s[32];
    if (threadIdx.x < 32) s[threadIdx.x] = x[(blockIdx.x * 32 + threadIdx.x) % n];
    __syncthreads();
    for (int r = 0; r < reps; ++r)
      acc += s[(threadIdx.x + r) % 32];
  }
  {
    const int size = 64;
    __shared__ float t[size];
    if (threadIdx.x < size) t[threadIdx.x] = x[(blockIdx.x * size + threadIdx.x) % n];
    __syncthreads();
    for (int r = 0; r < reps; ++r)
      acc += t[(threadIdx.x * 7 + r) % size];
  }
  if (i >= n) goto done;
#ifdef HALVE
  acc *= 0.5f;
#endif
  y[i] = acc;
done:
  return;
}

// Refused: a parameter without a name cannot be passed on.
__global__ void unnamed(float *x, int, int reps) {
  for (int r = 0; r < reps; ++r)
    x[threadIdx.x] *= 0.5f;
}

// Refused: a default argument.
__global__ void defaulted(float *x, int reps = 4) {
  for (int r = 0; r < reps; ++r)
    x[threadIdx.x] *= 0.5f;
}

struct Taps {
  float w[8];
};

// Refused: a __grid_constant__ parameter.
__global__ void grid_constant(const __grid_constant__ Taps taps, float *x, int reps) {
  for (int r = 0; r < reps; ++r)
    x[threadIdx.x] *= taps.w[r % 8];
}
