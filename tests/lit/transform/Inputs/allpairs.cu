// All-pairs potentials: every thread reads every particle's position and
// charge at each step.
__global__ void potential(int n, const float *px, const float *py, const float *q, float soft, float *phi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float xi = px[i], yi = py[i];
  float sum = 0.0f;
  for (int j = 0; j < n; ++j) {
    float dx = px[j] - xi, dy = py[j] - yi;
    sum += q[j] * rsqrtf(dx * dx + dy * dy + soft);
  }
  phi[i] = sum;
}
