// A causal filter: y[i] = sum over t of h[t] * x[i - t], with x[<0] = 0.
__global__ void fir2(int n, int taps, const double *__restrict__ h, const double *__restrict__ x, double *y) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double acc = 0;
  for (int t = 0; t < taps; t++) {
    if (i - t >= 0) acc += h[t] * x[i - t];
  }
  y[i] = acc;
}
