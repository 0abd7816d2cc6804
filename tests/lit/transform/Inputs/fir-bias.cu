// A moving weighted sum plus a per-element bias: the store after the loop
// reads memory, so each item stores on its own.
__global__ void fir_bias(int n, int taps, const float *w, const float *x, const float *bias, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int t = 0; t < taps; ++t) {
    int j = i + t;
    if (j < n) acc += w[t] * x[j];
  }
  y[i] = acc + bias[i];
}
