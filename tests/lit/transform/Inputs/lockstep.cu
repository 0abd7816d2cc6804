// Kernels that synchronize, for thread_coarsening across barriers.
#define TILE 16
#define SIDE 32
#define RADIUS 3
#define SPAN 128

// A tiled product: tiles staged in shared memory, zero past the edges.
__global__ void mm_tiled(const float *a, const float *b, float *c, int n) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
    int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
    as[threadIdx.y][threadIdx.x] = row < n && ac < n ? a[row * n + ac] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = br < n && col < n ? b[br * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = acc;
}

// The same product as course material writes it: the barriers inside the
// bounds check, the size a multiple of the tile.
__global__ void mm_guarded(const float *a, const float *b, float *c, int n) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  int x = threadIdx.x + blockDim.x * blockIdx.x;
  int y = threadIdx.y + blockDim.y * blockIdx.y;
  if ((x < n) && (y < n)) {
    float sum = 0;
    for (int t = 0; t < n / TILE; t++) {
      as[threadIdx.y][threadIdx.x] = a[y * n + (t * TILE + threadIdx.x)];
      bs[threadIdx.y][threadIdx.x] = b[(t * TILE + threadIdx.y) * n + x];
      __syncthreads();
      for (int k = 0; k < TILE; k++)
        sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
      __syncthreads();
    }
    c[y * n + x] = sum;
  }
}

// A transpose through a padded tile, one element per thread.
__global__ void transpose_tile(float *out, const float *in, int width, int height) {
  __shared__ float tile[SIDE][SIDE + 1];
  int x = blockIdx.x * SIDE + threadIdx.x;
  int y = blockIdx.y * SIDE + threadIdx.y;
  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  x = blockIdx.y * SIDE + threadIdx.x;
  y = blockIdx.x * SIDE + threadIdx.y;
  if (x < height && y < width) out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}

// A 1-D stencil whose halo the first threads load; a thread past the end
// leaves before the barrier.
__global__ void stencil_halo(const int *in, int *out, int n) {
  __shared__ int window[SPAN + 2 * RADIUS];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  if (g >= n) return;
  window[l] = in[g];
  if (threadIdx.x < RADIUS) {
    window[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0;
    window[l + SPAN] = g + SPAN < n ? in[g + SPAN] : 0;
  }
  __syncthreads();
  int sum = 0;
  for (int o = -RADIUS; o <= RADIUS; ++o)
    sum += window[l + o];
  out[g] = sum;
}

// Per-block sums (blocks of at most 256 threads): a tree over a shared
// array whose stride halves in a while loop; the block's elements start at
// an offset every thread computes.
__global__ void block_sums(const unsigned *in, unsigned *out, int n) {
  __shared__ unsigned cells[256];
  in += (size_t)blockIdx.x * blockDim.x;
  int left = n - (int)(blockIdx.x * blockDim.x);
  cells[threadIdx.x] = (int)threadIdx.x < left ? in[threadIdx.x] : 0u;
  __syncthreads();
  unsigned s = blockDim.x / 2;
  while (s > 0) {
    if (threadIdx.x < s) cells[threadIdx.x] += cells[threadIdx.x + s];
    __syncthreads();
    s >>= 1;
  }
  if (threadIdx.x == 0) out[blockIdx.x] = cells[0];
}

// Each thread walks its own part of a row, its pointer moved as it goes.
__global__ void chunk_max(const float *in, float *out, int n, int chunk) {
  __shared__ float best[256];
  in += threadIdx.x * chunk;
  float m = -INFINITY;
  for (int i = 0; i < chunk && (int)threadIdx.x * chunk + i < n; ++i)
    m = fmaxf(m, *in++);
  best[threadIdx.x] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned t = 1; t < blockDim.x; ++t)
      m = fmaxf(m, best[t]);
    out[blockIdx.x] = m;
  }
}

// Written C-style: the locals declared first, the thread's index among
// values every thread shares, one counter for a thread's loop and for the
// tree's steps, and blocks past the last pair leaving together.
__global__ void pair_sums(const float *a, const float *b, float *out, int n, int pairs) {
  int i, row = blockIdx.x, t = threadIdx.x;
  float acc;
  __shared__ float part[128];
  if (row >= pairs) return;
  acc = 0.0f;
  for (i = t; i < n; i += 128)
    acc += a[row * n + i] * b[i];
  part[t] = acc;
  __syncthreads();
  for (i = 64; i > 0; i >>= 1) {
    if (t < i) part[t] += part[t + i];
    __syncthreads();
  }
  if (t == 0) out[row] = part[0];
}

// The work in the else of a branch whose then is empty.
__global__ void skip_tail(const float *in, float *out, int n) {
  __shared__ float cell[128];
  int g = blockIdx.x * 128 + threadIdx.x;
  if (g >= n) {
  } else {
    cell[threadIdx.x] = in[g];
    __syncthreads();
    out[g] = 2.0f * cell[threadIdx.x] + (threadIdx.x > 0 ? cell[threadIdx.x - 1] : 0.0f);
  }
}
