// Rotary position embedding of a tokens × dim activation: each thread rotates
// one pair (x[2j], x[2j+1]) of a token by the angle of its position.
#include "bench_common.h"

__global__ void rope(const float *x, const float *cos_t, const float *sin_t, float *y, int tokens, int half_dim) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < tokens * half_dim) {
    int t = p / half_dim, j = p % half_dim;
    float c = cos_t[t * half_dim + j], s = sin_t[t * half_dim + j];
    float a = x[2 * p], b = x[2 * p + 1];
    y[2 * p] = a * c - b * s;
    y[2 * p + 1] = a * s + b * c;
  }
}

int main(int argc, char **argv) {
  const int tokens = 8192, half_dim = 512, pairs = tokens * half_dim;
  auto x = bench::random_floats(2 * (size_t)pairs, 601);
  std::vector<float> ct(pairs), st(pairs);
  for (int t = 0; t < tokens; ++t)
    for (int j = 0; j < half_dim; ++j) {
      double a = t * std::pow(10000.0, -2.0 * j / (2 * half_dim));
      ct[t * half_dim + j] = (float)std::cos(a);
      st[t * half_dim + j] = (float)std::sin(a);
    }
  float *dx = bench::to_device(x), *dc = bench::to_device(ct), *ds = bench::to_device(st);
  float *dy = bench::device_zeros<float>(2 * (size_t)pairs);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { rope<<<(pairs + 255) / 256, 256>>>(dx, dc, ds, dy, tokens, half_dim); });
  std::vector<double> want(2 * (size_t)pairs);
  for (int p = 0; p < pairs; ++p) {
    double a = x[2 * p], b = x[2 * p + 1];
    want[2 * p] = a * ct[p] - b * st[p];
    want[2 * p + 1] = a * st[p] + b * ct[p];
  }
  bool ok = bench::all_close(bench::to_host(dy, want.size()), want, 1e-5, 1e-5);
  return bench::report("rope", ok, ms, 6.0 * pairs, 4.0 * 6.0 * pairs);
}
