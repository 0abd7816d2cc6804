// Kernels that read or write records of R elements at the thread's own
// index (p[R * i + c]), for vectorized_loads.

// Pairs rotated by a per-item angle's cosine and sine (R = 2).
__global__ void rotate_pairs(const float *x, const float *cs, const float *sn, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float a = x[2 * i], b = x[2 * i + 1];
    y[2 * i] = a * cs[i] - b * sn[i];
    y[2 * i + 1] = a * sn[i] + b * cs[i];
  }
}

// An LSTM cell's four gates read as one record (R = 4), the state as elements.
__global__ void lstm_gates(const float *gates, const float *c_prev, float *c, float *h, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  float ig = 1.f / (1.f + expf(-gates[k * 4 + 0]));
  float fg = 1.f / (1.f + expf(-gates[k * 4 + 1]));
  float gg = tanhf(gates[k * 4 + 2]);
  float og = 1.f / (1.f + expf(-gates[k * 4 + 3]));
  float cn = fg * c_prev[k] + ig * gg;
  c[k] = cn;
  h[k] = og * tanhf(cn);
}

// 8-bit RGB pixels to 8-bit gray (R = 3, 16 items per thread).
__global__ void rgb_gray(const unsigned char *rgb, unsigned char *gray, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) gray[i] = (unsigned char)(0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2]);
}

// 8-bit RGB pixels to float luminance (R = 3 bytes, 4 items per thread: a
// vector of 12 bytes, 4-byte aligned).
__global__ void rgb_luma(const unsigned char *rgb, float *luma, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) luma[i] = 0.2126f * rgb[3 * i + 0] + 0.7152f * rgb[3 * i + 1] + 0.0722f * rgb[3 * i + 2];
}

// Complex values scaled in place, field by field: each field's read follows
// the other field's store only.
__global__ void complex_scale(float *z, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    z[2 * i] *= s;
    z[2 * i + 1] = z[2 * i + 1] * s;
  }
}

// Refused: the record's middle field is never read, so the vector would read
// an element the kernel does not.
__global__ void some_fields(const float *xyz, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = xyz[3 * i] + xyz[3 * i + 2];
}

// Refused: one field is stored only by some items.
__global__ void masked_field(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[2 * i] = x[i];
    if (x[i] > 0.f) y[2 * i + 1] = x[i];
  }
}

// Refused: records of 8 elements.
__global__ void long_record(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.f;
    s += x[8 * i + 0] + x[8 * i + 1] + x[8 * i + 2] + x[8 * i + 3];
    s += x[8 * i + 4] + x[8 * i + 5] + x[8 * i + 6] + x[8 * i + 7];
    y[i] = s;
  }
}

// Refused: a field read after another stream's store.
__global__ void read_after_store(const float *x, float *y, float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float a = x[2 * i];
    y[i] = a;
    w[i] = a + x[2 * i + 1];
  }
}

// Pairs indexed through widening casts of the index (R = 2).
__global__ void pairs_wide(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[(long long)i * 2] - x[2 * (size_t)i + 1];
}

// Refused as a record: the index narrowed by a cast may wrap.
__global__ void pairs_narrow(const float *x, float *out, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[(int)i * 2] - x[(int)i * 2 + 1];
}
