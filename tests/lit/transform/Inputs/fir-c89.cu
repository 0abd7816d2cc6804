// A FIR filter written C-style: the tap counter declared before its loop.
__global__ void fir_c89(const float *x, const float *w, float *y, int n, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int t;
  float acc = 0.0f;
  if (i >= n) return;
  for (t = 0; t < taps; t++) {
    if (i + t < n) acc += w[t] * x[i + t];
  }
  y[i] = acc;
}
