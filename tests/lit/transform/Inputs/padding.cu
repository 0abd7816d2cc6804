// Shared-memory tiles read down their columns, and tiles smem_padding must
// leave as they are.
#define TILE 32
#define ROWS 8

// A transpose staged through a tile: the write of the output reads the
// tile down a column (lanes differ in the first subscript).
__global__ void transpose_tiles(float *out, const float *in, int width, int height) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Doubles written down a column through a local copy of threadIdx.x, read
// along rows (16 x 16 blocks).
__global__ void transpose_doubles(double *out, const double *in, int n) {
  __shared__ double t[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  int r = blockIdx.y * 16 + ty, c = blockIdx.x * 16 + tx;
  if (r < n && c < n) t[tx][ty] = in[r * n + c];
  __syncthreads();
  r = blockIdx.x * 16 + ty;
  c = blockIdx.y * 16 + tx;
  if (r < n && c < n) out[r * n + c] = t[ty][tx];
}

// Bytes: each thread sums its own row of a staged block of rows (64 bytes,
// 16 banks wide): padded by 4 bytes.
__global__ void byte_rows(const unsigned char *in, int *sums, int rows) {
  __shared__ unsigned char t[32][64];
  int base = blockIdx.x * 32;
  for (int k = threadIdx.x; k < 32 * 64; k += blockDim.x)
    t[k / 64][k % 64] = base + k / 64 < rows ? in[(size_t)(base + k / 64) * 64 + k % 64] : 0;
  __syncthreads();
  if (threadIdx.x < 32 && base + threadIdx.x < rows) {
    int s = 0;
    for (int j = 0; j < 64; ++j) s += t[threadIdx.x][j];
    sums[base + threadIdx.x] = s;
  }
}

// Three dimensions: two planes of tiles, the column in the middle subscript.
__global__ void planes(float *out, const float *in, int n) {
  __shared__ float t[2][TILE][TILE];
  int c = blockIdx.x * TILE + threadIdx.x;
  for (int p = 0; p < 2; ++p)
    for (int j = threadIdx.y; j < TILE; j += ROWS)
      t[p][j][threadIdx.x] = c < n ? in[(size_t)(p * TILE + j) * n + c] : 0.0f;
  __syncthreads();
  if (c < n) {
    float s = 0;
    for (int j = 0; j < TILE; ++j) s += t[0][threadIdx.x][j] * t[1][threadIdx.x][j];
    if (threadIdx.y == 0) out[c] = s;
  }
}

// A tiled product reads its tiles along rows and as broadcasts: no column
// access to pad.
__global__ void tiles_product(const float *a, const float *b, float *c, int n) {
  __shared__ float as[16][16], bs[16][16];
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float s = 0;
  for (int m = 0; m < n / 16; ++m) {
    as[threadIdx.y][threadIdx.x] = a[row * n + m * 16 + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(m * 16 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) s += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = s;
}

// An element's address reaches the next row through pointer arithmetic.
__global__ void element_address(float *out, const float *in) {
  __shared__ float t[32][32];
  t[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  const float *p = &t[threadIdx.x][0];
  out[threadIdx.y * 32 + threadIdx.x] = p[32 + threadIdx.y];
}

// A row used as a pointer.
__global__ void row_pointer(float *out, const float *in) {
  __shared__ float t[32][32];
  t[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  float *row = t[threadIdx.x];
  out[threadIdx.y * 32 + threadIdx.x] = row[threadIdx.y];
}

// Padded already: 33 banks per row.
__global__ void padded(float *out, const float *in) {
  __shared__ float t[32][33];
  t[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = t[threadIdx.x][threadIdx.y];
}

// 48 KiB already: one more column per row does not fit.
__global__ void full(float *out, const float *in) {
  __shared__ float t[96][128];
  for (int r = threadIdx.y; r < 96; r += blockDim.y) t[r][threadIdx.x] = in[r * 128 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 96) out[threadIdx.x * 128 + threadIdx.y] = t[threadIdx.x][threadIdx.y];
}
