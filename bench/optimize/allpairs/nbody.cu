// Naive all-pairs accelerations: one thread per body reads every body's
// position and mass from global memory, as course material writes n-body.
#include "bench_common.h"

__global__ void nbody_accel(int n, const float *x, const float *y, const float *z, const float *m, float eps,
                            float *ax, float *ay, float *az) {
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

int main(int argc, char **argv) {
  const int n = 16384;
  const float eps = 1e-2f;
  auto x = bench::random_floats(n, 81), y = bench::random_floats(n, 82), z = bench::random_floats(n, 83);
  auto m = bench::random_floats(n, 84, 0.5f, 1.5f);
  float *dx = bench::to_device(x), *dy = bench::to_device(y), *dz = bench::to_device(z), *dm = bench::to_device(m);
  float *ax = bench::device_zeros<float>(n), *ay = bench::device_zeros<float>(n), *az = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { nbody_accel<<<(n + 127) / 128, 128>>>(n, dx, dy, dz, dm, eps, ax, ay, az); });
  std::vector<double> want(3 * (size_t)n), tol(3 * (size_t)n);
  for (int i = 0; i < n; ++i) {
    double s[3] = {0, 0, 0}, mag[3] = {0, 0, 0};
    for (int j = 0; j < n; ++j) {
      double d[3] = {(double)x[j] - x[i], (double)y[j] - y[i], (double)z[j] - z[i]};
      double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps;
      double w = m[j] / (d2 * std::sqrt(d2));
      for (int c = 0; c < 3; ++c)
        s[c] += d[c] * w, mag[c] += std::fabs(d[c] * w);
    }
    for (int c = 0; c < 3; ++c)
      want[c * (size_t)n + i] = s[c], tol[c * (size_t)n + i] = 1e-4 * mag[c];
  }
  std::vector<float> got = bench::to_host(ax, n), gy = bench::to_host(ay, n), gz = bench::to_host(az, n);
  got.insert(got.end(), gy.begin(), gy.end());
  got.insert(got.end(), gz.begin(), gz.end());
  bool ok = true;
  for (size_t k = 0; k < got.size(); ++k)
    ok = ok && std::fabs(got[k] - want[k]) <= tol[k];
  return bench::report("nbody", ok, ms, 20.0 * n * n, 28.0 * n);
}
