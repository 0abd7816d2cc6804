// Group normalisation over NCHW activations, one thread per (sample, group):
// the group's channels are contiguous, so each thread sums, then squares,
// then normalises one contiguous span with its channel's scale and shift.
#include "bench_common.h"

__global__ void group_norm(const float *x, float *y, const float *gamma, const float *beta, int batch, int groups,
                           int per_group, int hw, float eps) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int channels = groups * per_group;
  if (t >= batch * groups) return;
  int n = t / groups, g = t % groups;
  size_t base = ((size_t)n * channels + (size_t)g * per_group) * hw;
  int len = per_group * hw;
  float s = 0.f;
  for (int e = 0; e < len; ++e)
    s += x[base + e];
  float mean = s / len;
  float v = 0.f;
  for (int e = 0; e < len; ++e) {
    float d = x[base + e] - mean;
    v += d * d;
  }
  float inv = rsqrtf(v / len + eps);
  for (int e = 0; e < len; ++e) {
    int c = g * per_group + e / hw;
    y[base + e] = (x[base + e] - mean) * inv * gamma[c] + beta[c];
  }
}

int main(int argc, char **argv) {
  const int batch = 32, channels = 256, groups = 32, per_group = channels / groups, hw = 32 * 32;
  const float eps = 1e-5f;
  const size_t total = (size_t)batch * channels * hw;
  auto x = bench::random_floats(total, 521), gm = bench::random_floats(channels, 522, 0.5f, 1.5f),
       bt = bench::random_floats(channels, 523);
  float *dx = bench::to_device(x), *dgm = bench::to_device(gm), *dbt = bench::to_device(bt);
  float *dy = bench::device_zeros<float>(total);
  int items = batch * groups;
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { group_norm<<<(items + 127) / 128, 128>>>(dx, dy, dgm, dbt, batch, groups, per_group, hw, eps); });
  std::vector<double> want(total);
  for (int t = 0; t < items; ++t) {
    int n = t / groups, g = t % groups;
    size_t base = ((size_t)n * channels + (size_t)g * per_group) * hw;
    size_t len = (size_t)per_group * hw;
    double mean = 0, var = 0;
    for (size_t e = 0; e < len; ++e)
      mean += x[base + e];
    mean /= len;
    for (size_t e = 0; e < len; ++e)
      var += (x[base + e] - mean) * (x[base + e] - mean);
    double inv = 1.0 / std::sqrt(var / len + eps);
    for (size_t e = 0; e < len; ++e) {
      int c = g * per_group + (int)(e / hw);
      want[base + e] = (x[base + e] - mean) * inv * gm[c] + bt[c];
    }
  }
  bool ok = bench::all_close(bench::to_host(dy, total), want, 1e-3, 1e-4);
  return bench::report("group_norm", ok, ms, 8.0 * total, 8.0 * total);
}
