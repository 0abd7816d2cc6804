// Naive gather: dst[i] = src[idx[i]] * scale with random indices.
#include "bench_common.h"

__global__ void gather_scale(int n, const int *idx, const float *src, float scale, float *dst) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[idx[i]] * scale;
}

int main(int argc, char **argv) {
  const int n = 1 << 22;
  auto src = bench::random_floats(n, 14);
  auto idx = bench::random_ints(n, 15, n);
  float *dsrc = bench::to_device(src), *ddst = bench::device_zeros<float>(n);
  int *didx = bench::to_device(idx);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { gather_scale<<<(n + 127) / 128, 128>>>(n, didx, dsrc, 0.5f, ddst); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i)
    want[i] = 0.5 * src[idx[i]];
  bool ok = bench::all_close(bench::to_host(ddst, n), want, 0, 0);
  return bench::report("gather", ok, ms, 1.0 * n, 12.0 * n);
}
