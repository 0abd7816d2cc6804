// Thread-per-item kernels whose item loops over a nest of two loops, for
// split_loop_across_warp's nest=flat (the lanes of an item's group share the
// nest's (outer, inner) pairs as one range) and nest=inner (they share the
// inner loop, each running the outer one).

// Per-channel sums over N images of HW pixels (NCHW): exact in integers.
__global__ void channel_sums(const int *x, int *sum, int *peak, int N, int C, int HW) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < C) {
    int s = 0, m = -2147483647 - 1;
    for (int n = 0; n < N; ++n)
      for (int p = 0; p < HW; ++p) {
        int v = x[((size_t)n * C + c) * HW + p];
        s += v;
        m = max(m, v);
      }
    sum[c] = s;
    peak[c] = m;
  }
}

// The loops' variables declared first and set by the loops, a `continue` in
// the inner body, a start other than zero and an inclusive bound.
__global__ void filter_counts(const int *x, int *count, int filters, int batch, int lo, int hi) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  if (f >= filters) return;
  int j, k;
  int n = 0;
  for (j = 1; j <= batch; ++j) {
    for (k = lo; k <= hi; ++k) {
      int v = x[(j - 1) * filters * (hi + 1) + f * (hi + 1) + k];
      if (v < 0) continue;
      n += v & 1;
    }
  }
  count[f] = n;
}

// Float means over a batch and the rows of a window, with a third loop that
// each lane runs as written.
__global__ void window_means(const float *x, float *mean, int items, int batch, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < items) {
    float s = 0.f;
    for (int b = 0; b < batch; ++b)
      for (int r = 0; r < rows; ++r)
        for (int q = 0; q < cols; ++q)
          s += x[((size_t)b * items + i) * rows * cols + r * cols + q];
    mean[i] = s / (batch * rows * cols);
  }
}

// Not flattened: the inner range depends on the outer variable. Its inner
// loop can be shared.
__global__ void triangle(const float *x, float *y, int n, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.f;
    for (int a = 0; a < len; ++a)
      for (int b = 0; b < a; ++b)
        s += x[i * len + a] * x[i * len + b];
    y[i] = s;
  }
}

// Not flattened, its inner loop not shared: the outer body does more than
// its inner loop.
__global__ void imperfect(const float *x, float *y, int n, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.f;
    for (int r = 0; r < rows; ++r) {
      s *= 0.5f;
      for (int q = 0; q < cols; ++q)
        s += x[(i * rows + r) * cols + q];
    }
    y[i] = s;
  }
}

// Neither: the inner bound is a variable the nest writes.
__global__ void growing(const int *x, int *y, int n, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int s = 0;
    for (int r = 0; r < rows; ++r)
      for (int q = 0; q < s % 7; ++q)
        s += x[i * rows + r] + q;
    y[i] = s;
  }
}

// Neither: the nest selects a best element (and where it is).
__global__ void nest_argmax(const float *x, int *where, int n, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float best = -1e30f;
    int at = -1;
    for (int r = 0; r < rows; ++r)
      for (int q = 0; q < cols; ++q)
        if (x[(i * rows + r) * cols + q] > best) {
          best = x[(i * rows + r) * cols + q];
          at = r * cols + q;
        }
    where[i] = at;
  }
}

// Not flattened, for the weight the outer body declares; its inner loop can
// be shared. Exact in integers.
__global__ void weighted_counts(const int *x, const int *wt, int *y, int n, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int s = 0;
    for (int r = 0; r < rows; ++r) {
      const int w = wt[r] & 7;
      for (int q = 0; q < cols; ++q)
        s += w * (x[((size_t)r * n + i) * cols + q] & 1023);
    }
    y[i] = s;
  }
}

// Its inner loop not shared: a value the outer body declares passes from one
// inner iteration to the next.
__global__ void carried(const float *x, float *y, int n, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.f;
    for (int r = 0; r < rows; ++r) {
      float run = 0.f;
      for (int q = 0; q < cols; ++q) {
        run = 0.5f * run + x[(i * rows + r) * cols + q];
        s += run;
      }
    }
    y[i] = s;
  }
}

// Three loops deep, the pairs a triangle and the deepest loop contiguous:
// the lanes can share the deepest (nest=deep), each running the pairs; the
// middle body declares the pair's row first. Exact in integers.
__global__ void pair_products(const int *x, int *y, int n, int fields, int dim) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int s = 0;
    for (int a = 0; a < fields; ++a)
      for (int b = a + 1; b < fields; ++b) {
        const int *row = x + ((size_t)i * fields + b) * dim;
        for (int k = 0; k < dim; ++k)
          s += (x[((size_t)i * fields + a) * dim + k] & 15) * (row[k] & 15);
      }
    y[i] = s;
  }
}

// Its deepest loop not shared: the middle loop accumulates outside it.
__global__ void middle_terms(const int *x, int *y, int n, int rows, int cols, int depth) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int s = 0;
    for (int r = 0; r < rows; ++r)
      for (int q = 0; q < cols; ++q) {
        s += x[(i * rows + r) * cols + q] & 7;
        for (int d = 0; d < depth; ++d)
          s += x[((i * rows + r) * cols + q) * depth + d] & 3;
      }
    y[i] = s;
  }
}
