// Thread-per-row loops that must stay serial: an online update, a recurrence
// that stores as it goes, an inclusive bound; and the forms the row-stream
// staging refuses.
__global__ void welford(const float *x, float *mean, float *var, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = 0.f, m2 = 0.f;
    for (int c = 0; c < cols; ++c) {
      float v = x[(size_t)r * cols + c];
      float d = v - m;
      m += d / (c + 1);
      m2 += d * (v - m);
    }
    mean[r] = m;
    var[r] = m2 / cols;
  }
}

// A first-order filter along each row, skipping NaNs, gated by a second row.
__global__ void iir_rows(const float *x, const float *gate, float *y, int rows, int n, float a) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *xr = x + (size_t)r * n;
  float s = 0.f;
  for (int c = 0; c < n; ++c) {
    if (xr[c] != xr[c]) continue;
    int at = r * n + c;
    s = a * s + gate[at] * xr[c];
    y[at] = s;
  }
}

// Columns 0 to last of each row, in double.
__global__ void decay_last(const double *x, double *out, int rows, int width, int last) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    double p = 1.0;
    for (int c = 0; c <= last; ++c)
      p = p * 0.5 + x[r * width + c];
    out[r] = p;
  }
}

// A sum: split_loop_across_warp shares it instead.
__global__ void row_sum(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.f;
    for (int c = 0; c < cols; ++c)
      s += x[r * cols + c];
    y[r] = s;
  }
}

// Each row's loop ends at the row: the block's threads run different counts.
__global__ void lower_decay(const float *a, float *y, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) {
    float p = 0.f;
    for (int c = 0; c <= r; ++c)
      p = p * 0.5f + a[r * n + c];
    y[r] = p;
  }
}

// The loop rewrites the row it reads.
__global__ void decay_inplace(float *x, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float p = 0.f;
    for (int c = 0; c < cols; ++c) {
      p = p * 0.5f + x[r * cols + c];
      x[r * cols + c] = p;
    }
  }
}

// Rows read down a column: consecutive rows already read consecutive elements.
__global__ void decay_columns(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float p = 0.f;
    for (int c = 0; c < cols; ++c)
      p = p * 0.5f + x[c * rows + r];
    y[r] = p;
  }
}

// Which rows reach the loop depends on memory.
__global__ void decay_flagged(const float *x, const int *flag, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows || flag[r] == 0) return;
  float p = 0.f;
  for (int c = 0; c < cols; ++c)
    p = p * 0.5f + x[r * cols + c];
  y[r] = p;
}

// The loop stops at the first negative element.
__global__ void decay_until(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float p = 0.f;
    for (int c = 0; c < cols; ++c) {
      if (x[r * cols + c] < 0.f) break;
      p = p * 0.5f + x[r * cols + c];
    }
    y[r] = p;
  }
}

// A mean of the first `warm` columns seeds a decay over the rest: the sum is
// staged with the recurrence, each loop with its own tile.
__global__ void seeded_decay(const float *x, float *y, int rows, int cols, int warm, float k) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  if (cols < warm) return;
  float s = 0.f;
  for (int c = 0; c < warm; ++c)
    s += x[r * cols + c];
  float e = s / warm;
  for (int c = warm; c < cols; ++c) {
    e = k * x[r * cols + c] + (1.f - k) * e;
    y[r * cols + c] = e;
  }
}

// The filter stores through a pointer picked at run time, which may be x.
__global__ void decay_picked(const float *x, float *a, float *b, int rows, int cols, int which) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float *out = which ? a : b;
    float p = 0.f;
    for (int c = 0; c < cols; ++c) {
      p = p * 0.5f + x[r * cols + c];
      out[r * cols + c] = p;
    }
  }
}
