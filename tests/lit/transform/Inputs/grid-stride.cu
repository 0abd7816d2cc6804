// A grid-stride SAXPY: its items are independent, so it may run one item per
// thread; zero elements of x are skipped with `continue`.
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  for (int i = index; i < n; i += stride) {
    if (x[i] == 0.0f) continue;
    y[i] = a * x[i] + y[i];
  }
}

// The same loop carrying a running sum from one item to the next: its items
// are not independent.
__global__ void running(int n, const float *x, float *y) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    s += x[i];
    y[i] = s;
  }
}

// Caffe's loop macro: the header comes from the macro, the body is written out.
#define CUDA_KERNEL_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__global__ void leaky_relu(const int count, const float *in, float *out, float slope) {
  CUDA_KERNEL_LOOP(index, count) {
    out[index] = in[index] > 0 ? in[index] : in[index] * slope;
  }
}

// A flattened 2-D grid (a 1-D index over a grid made 2-D to hold more blocks).
__global__ void flat(int n, const float *x, float *y) {
  int i = (blockIdx.x + blockIdx.y * gridDim.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}

// Two nested grid-stride loops, x outside and y inside, the inner one
// restarted on each pass: item (i, j) stores b[i * n + j].
__global__ void transpose_nest(int n, const int *a, int *b) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  int j = threadIdx.y + blockDim.y * blockIdx.y;
  while (i < n) {
    j = threadIdx.y + blockDim.y * blockIdx.y;
    while (j < n) {
      b[i * n + j] = a[j * n + i];
      j += blockDim.y * gridDim.y;
    }
    i += blockDim.x * gridDim.x;
  }
}

// Rows in y outside, columns in x inside, as for loops without braces.
__global__ void scale_rows(int rows, int cols, const float *s, const float *x, float *y) {
  for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += blockDim.y * gridDim.y)
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += blockDim.x * gridDim.x)
      y[r * cols + c] = s[r] * x[r * cols + c];
}

// The inner loop is not restarted: after the first column, each thread's j
// is past the bound, so items do not run independently.
__global__ void no_restart(int n, const float *x, float *y) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  int j = threadIdx.y + blockDim.y * blockIdx.y;
  while (i < n) {
    while (j < n) {
      y[i * n + j] = x[i * n + j];
      j += blockDim.y * gridDim.y;
    }
    i += blockDim.x * gridDim.x;
  }
}

// Items (r, c) and (r + 1, c - 1) store the same element.
__global__ void diagonal_sum(int rows, int cols, const float *x, float *y) {
  for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += blockDim.y * gridDim.y)
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += blockDim.x * gridDim.x)
      y[r + c] = x[r * cols + c];
}

// Sixteen columns: the constant bounds prove r * 16 + c distinct per item.
__global__ void rows16(int rows, const float *x, float *y) {
  for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += blockDim.y * gridDim.y)
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < 16; c += blockDim.x * gridDim.x)
      y[r * 16 + c] = 2.0f * x[r * 16 + c];
}

// The column bound is not known to be at most the row length `ld`.
__global__ void rows_ld(int rows, int cols, int ld, const float *x, float *y) {
  for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += blockDim.y * gridDim.y)
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += blockDim.x * gridDim.x)
      y[r * ld + c] = 2.0f * x[r * ld + c];
}

// Bounds from macros, as course material writes them.
#define WIDTH 1024
#define COUNT 1048576
__global__ void add_macro(const float *a, const float *b, float *c) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  while (i < WIDTH) {
    j = threadIdx.y + blockIdx.y * blockDim.y;
    while (j < WIDTH) {
      c[i * WIDTH + j] = a[i * WIDTH + j] + b[i * WIDTH + j];
      j += blockDim.y * gridDim.y;
    }
    i += blockDim.x * gridDim.x;
  }
}

__global__ void scale_macro(float a, float *x) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < COUNT; i += blockDim.x * gridDim.x)
    x[i] *= a;
}

__global__ void scale_shift(float a, float *x) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (1 << 20); i += blockDim.x * gridDim.x)
    x[i] *= a;
}

// The block extent written as a constant instead of blockDim.
#define BLOCK_SIZE 256
#define TILE 16
__global__ void scale_fixed(int n, const float *x, float *y) {
  int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

__global__ void rows_tile(int n, const float *a, float *c) {
  int r = threadIdx.x + blockIdx.x * TILE;
  int col = blockIdx.y * TILE + threadIdx.y;
  if (r < n && col < n) c[r * n + col] = a[r * n + col];
}

// Two extents for one dimension: no block has both.
__global__ void two_extents(int n, const float *x, float *y) {
  int i = blockIdx.x * 256 + threadIdx.x;
  int j = blockIdx.x * 128 + threadIdx.x;
  if (i < n) y[i] = x[j];
}
