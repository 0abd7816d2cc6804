// Atomics whose address is the same for every thread.
__global__ void dot(const float *a, const float *b, float *result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(result, a[i] * b[i]);
}

__global__ void moments(const float *x, float *s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  atomicAdd(&s[0], v);
  atomicAdd(&s[1], v * v);
}

__global__ void net_votes(const float *x, float t, int *tally, int slot, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (x[i] > t)
      atomicAdd(tally + slot, 1);
    else
      atomicSub(tally + slot, 1);
  }
}

__global__ void row_peak(const unsigned long long *key, int m, unsigned long long *best, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int j = 0; j < m; ++j)
      atomicMax(best, key[i * m + j]);
}

__global__ void total(const double *x, double *sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(sum, x[i]);
}

__global__ void image_sum(const float *img, int w, int h, float *sum) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) atomicAdd(sum, img[y * w + x]);
}

__global__ void seen_bits(const int *v, unsigned *mask, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicOr(mask, 1u << (v[i] & 31));
}

__device__ unsigned long long hits;
__global__ void count_hits(const float *x, float t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > t) atomicAdd(&hits, 1ull);
}

__global__ void slot_sum(const float *x, float *out, int slot, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float *mine = out + 2 * slot;
  if (i < n) atomicAdd(mine, x[i]);
}
