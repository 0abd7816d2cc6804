// A moving weighted sum over a zero-padded window of x.
__global__ void fir(int n, int taps, const float *w, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int half = taps / 2;
  float acc = 0.0f;
  for (int t = 0; t < taps; ++t) {
    int j = i + t - half;
    if (j >= 0 && j < n) acc += w[t] * x[j];
  }
  y[i] = acc;
}
