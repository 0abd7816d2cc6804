// The Euclidean norm of a vector, written as teaching code writes a first
// reduction: one thread, launched alone, walks the whole vector.
#include "bench_common.h"

#include <cmath>

__global__ void vec_norm(const float *x, float *norm, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  *norm = sqrtf(s);
}

int main(int argc, char **argv) {
  const int n = 1 << 18;
  auto x = bench::random_floats(n, 701, -1.f, 1.f);
  float *dx = bench::to_device(x), *dn = bench::device_zeros<float>(1);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { vec_norm<<<1, 1>>>(dx, dn, n); });
  double s = 0;
  for (float v : x)
    s += (double)v * v;
  bool ok = bench::all_close(bench::to_host(dn, 1), {std::sqrt(s)}, 1e-4, 1e-5);
  return bench::report("vec_norm", ok, ms, 2.0 * n, 4.0 * n);
}
