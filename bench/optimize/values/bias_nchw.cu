// A bias per channel added to an NCHW activation, one thread per element:
// the channel comes from dividing the flat index by the plane's size and
// taking it modulo the channels, both run-time arguments.
#include "bench_common.h"

__global__ void bias_nchw(float *x, const float *bias, int n, int channels, int plane) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += bias[(i / plane) % channels];
}

int main(int argc, char **argv) {
  const int batch = 32, channels = 96, plane = 56 * 56, n = batch * channels * plane;
  auto x = bench::random_floats(n, 171), b = bench::random_floats(channels, 172);
  float *dx = bench::to_device(x), *db = bench::to_device(b);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv),
      [&] { CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice)); },
      [&] { bias_nchw<<<(n + 255) / 256, 256>>>(dx, db, n, channels, plane); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i)
    want[i] = (double)x[i] + b[(i / plane) % channels];
  bool ok = bench::all_close(bench::to_host(dx, n), want, 1e-6, 1e-6);
  return bench::report("bias_nchw", ok, ms, 1.0 * n, 8.0 * n);
}
