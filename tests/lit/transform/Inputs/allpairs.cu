// All-pairs accelerations: every thread reads every body's position and mass.
__global__ void forces(int n, const float *x, const float *y, const float *z, const float *m, float eps, float *ax,
                       float *ay, float *az) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float xi = x[i], yi = y[i], zi = z[i];
  float sx = 0.0f, sy = 0.0f, sz = 0.0f;
  for (int j = 0; j < n; ++j) {
    float dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
    float d2 = dx * dx + dy * dy + dz * dz + eps;
    float inv = rsqrtf(d2);
    float s = m[j] * inv * inv * inv;
    sx += dx * s;
    sy += dy * s;
    sz += dz * s;
  }
  ax[i] = sx;
  ay[i] = sy;
  az[i] = sz;
}
