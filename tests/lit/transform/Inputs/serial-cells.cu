// Thread 0 folds the other cells into the first one, then a max and a
// bit-or in one loop over two arrays.
__global__ void fold_first(const int *x, int *out) {
  __shared__ int cells[128];
  cells[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int k = 1; k < blockDim.x; k++) cells[0] += cells[k];
    out[blockIdx.x] = cells[0];
  }
}

__global__ void max_and_flags(const float *x, const unsigned *f, float *best, unsigned *flags) {
  __shared__ float v[256];
  __shared__ unsigned bits[256];
  const int t = threadIdx.x;
  v[t] = x[blockIdx.x * 256 + t];
  bits[t] = f[blockIdx.x * 256 + t];
  __syncthreads();
  if (t == 0) {
    float m = v[0];
    unsigned any = 0u;
    for (unsigned k = 1; k <= 255u; ++k) {
      m = fmaxf(m, v[k]);
      any |= bits[k];
    }
    best[blockIdx.x] = m;
    flags[blockIdx.x] = any | bits[0];
  }
}

// Thread 0 scans a row of global memory (through a local pointer) into a
// shared scalar, which it starts from the row's first element: no barrier
// is needed before.
__global__ void row_max_serial(const float *x, int n, float *out) {
  __shared__ float best;
  const float *row = x + blockIdx.x * n;
  if (threadIdx.x == 0) {
    best = row[0];
    for (int i = 1; i < n; ++i) best = fmaxf(best, row[i]);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[blockIdx.x * n + i] = row[i] - best;
}

// A math function of each cell: every thread can compute it.
__global__ void l1_norm(const float *x, float *out) {
  __shared__ float v[256];
  v[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int i = 0; i < blockDim.x; ++i) s += fabsf(v[i]);
    out[blockIdx.x] = s;
  }
}
