// Serial kernels: they read no CUDA builtin, so every thread would run all
// of each; programs launch them as one thread.

// An integer sum and maximum: exact.
__global__ void serial_sum_max(const int *x, int *out, int n) {
  int s = 0, m = -2147483647 - 1;
  for (int i = 0; i < n; ++i) {
    s += x[i];
    m = max(m, x[i]);
  }
  out[0] = s;
  out[1] = m;
}

// The mean, then the variance about it: the second loop reads what the
// first one reduced.
__global__ void serial_moments(const float *x, float *out, int n) {
  float s = 0.f;
  for (int i = 0; i < n; ++i)
    s += x[i];
  float mean = n > 0 ? s / n : 0.f;
  float v = 0.f;
  for (int i = 0; i < n; ++i)
    v += (x[i] - mean) * (x[i] - mean);
  out[0] = mean;
  out[1] = n > 0 ? v / n : 0.f;
}

// The first index of the maximum.
__global__ void serial_argmax(const float *x, int *where, int n) {
  float best = -3.0e38f;
  int at = -1;
  for (int i = 0; i < n; ++i)
    if (x[i] > best) {
      best = x[i];
      at = i;
    }
  *where = at;
}

// A running sum, written out at each step (a scan).
__global__ void serial_cumsum(const int *x, int *y, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) {
    s += x[i];
    y[i] = s;
  }
}

// Not shared: a recurrence, not an accumulation.
__global__ void serial_recurrence(const float *x, float *y, int n) {
  float h = 0.f;
  for (int i = 0; i < n; ++i) {
    h = 0.5f * h + x[i];
    y[i] = h;
  }
}

// Not serial: thread 0 of block 0 does the work.
__global__ void thread_zero(const float *x, float *out, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    float s = 0.f;
    for (int i = 0; i < n; ++i)
      s += x[i];
    *out = s;
  }
}
