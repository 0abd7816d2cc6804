// The mean and standard deviation of a whole buffer, computed by one thread
// in two passes, as a first port of CPU code writes it.
#include "bench_common.h"

#include <cmath>

__global__ void global_stats(const float *x, float *stats, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i)
    sum += x[i];
  float mean = sum / n;
  float sq = 0.0f;
  for (int i = 0; i < n; ++i)
    sq += (x[i] - mean) * (x[i] - mean);
  stats[0] = mean;
  stats[1] = sqrtf(sq / n);
}

int main(int argc, char **argv) {
  const int n = 1 << 18;
  auto x = bench::random_floats(n, 703, -2.f, 3.f);
  float *dx = bench::to_device(x), *ds = bench::device_zeros<float>(2);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { global_stats<<<1, 1>>>(dx, ds, n); });
  double sum = 0, sq = 0;
  for (float v : x)
    sum += v;
  double mean = sum / n;
  for (float v : x)
    sq += (v - mean) * (v - mean);
  bool ok = bench::all_close(bench::to_host(ds, 2), {mean, std::sqrt(sq / n)}, 1e-3, 1e-4);
  return bench::report("global_stats", ok, ms, 5.0 * n, 4.0 * n);
}
