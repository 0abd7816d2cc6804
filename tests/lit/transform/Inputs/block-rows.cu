// Kernels of one block per row whose threads stride the row by blockDim.x
// in several loops that read the same elements.

// Layer normalisation: mean, variance and output passes over a row pointer,
// shared-memory trees between them (blocks of up to 512 threads).
__global__ void norm_rows(const float *x, float *y, const float *g, const float *b, int cols, float eps) {
  __shared__ float red[512];
  int row = blockIdx.x;
  const float *xr = x + (size_t)row * cols;
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    s += xr[c];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o /= 2) {
    if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
    __syncthreads();
  }
  float mean = red[0] / cols;
  __syncthreads();
  float v = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float d = xr[c] - mean;
    v += d * d;
  }
  red[threadIdx.x] = v;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o /= 2) {
    if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
    __syncthreads();
  }
  float inv = rsqrtf(red[0] / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[(size_t)row * cols + c] = (xr[c] - mean) * inv * g[c] + b[c];
}

// A softmax of rows in place, the row's offset written in each index, the
// loop variable unsigned and named apart in each loop, a thread index in a
// local, blocks of 128 threads.
__global__ void softmax_inplace(float *x, int n) {
  __shared__ float m[128];
  unsigned tid = threadIdx.x;
  float best = -INFINITY;
  for (unsigned j = tid; j < n; j += blockDim.x)
    best = fmaxf(best, x[blockIdx.x * n + j]);
  m[tid] = best;
  __syncthreads();
  if (tid == 0)
    for (int t = 1; t < blockDim.x; ++t)
      m[0] = fmaxf(m[0], m[t]);
  __syncthreads();
  best = m[0];
  __syncthreads();
  float sum = 0;
  for (unsigned k = tid; k < n; k += blockDim.x)
    sum += expf(x[blockIdx.x * n + k] - best);
  m[tid] = sum;
  __syncthreads();
  if (tid == 0)
    for (int t = 1; t < blockDim.x; ++t)
      m[0] += m[t];
  __syncthreads();
  sum = m[0];
  for (unsigned c = tid; c < n; c += blockDim.x)
    x[blockIdx.x * n + c] = expf(x[blockIdx.x * n + c] - best) / sum;
}

// The first loop stores: a later loop may read what it wrote.
__global__ void stores_between(float *x, float *y, int n) {
  float s = 0;
  for (int c = threadIdx.x; c < n; c += blockDim.x) {
    s += x[blockIdx.x * n + c];
    y[blockIdx.x * n + c] = 0;
  }
  for (int c = threadIdx.x; c < n; c += blockDim.x)
    x[blockIdx.x * n + c] = x[blockIdx.x * n + c] + s;
}

// The last loop reads an element after storing one.
__global__ void read_after_store(float *x, float *y, int n) {
  float s = 0;
  for (int c = threadIdx.x; c < n; c += blockDim.x)
    s += x[blockIdx.x * n + c];
  for (int c = threadIdx.x; c < n; c += blockDim.x) {
    y[blockIdx.x * n + c] = s;
    y[blockIdx.x * n + c] += x[blockIdx.x * n + c];
  }
}

// The elements are read only where a mask allows.
__global__ void masked_reads(const float *x, const int *mask, float *y, int n) {
  float s = 0;
  for (int c = threadIdx.x; c < n; c += blockDim.x)
    if (mask[c]) s += x[blockIdx.x * n + c];
  for (int c = threadIdx.x; c < n; c += blockDim.x)
    y[blockIdx.x * n + c] = mask[c] ? x[blockIdx.x * n + c] - s : 0.0f;
}
