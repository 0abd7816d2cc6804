// A per-element filter chain under the thread's bounds check written as a
// block: every thread reads the same coefficients a[k] and b[steps - k] at
// step k, before a `continue` that may skip the rest of the step.
__global__ void chain(int n, int steps, const float *a, const float *b, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double v = x[i];
    for (int k = 0; k <= steps; ++k) {
      double t = a[k] * v + b[steps - k];
      if (t > 1e30) continue;
      v = t;
    }
    y[i] = v;
  }
}

// Positive weights only: w[k] is read in the condition at every step, and
// again in the branch, which the staged value serves as well; x[i] differs
// between threads.
__global__ void clipped(int n, const float *w, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0.0f;
  for (int k = 0; k < n; ++k)
    if (w[k] > 0.0f) s += w[k] * x[i];
  y[i] = s;
}
