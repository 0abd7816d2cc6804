// Batch-norm mean as Darknet-style code writes it: one thread per filter,
// the loop variables declared first, the sum kept in the output itself.
#include "bench_common.h"

__global__ void bn_mean(const float *x, int batch, int filters, int spatial, float *mean) {
  float scale = 1.f / (batch * spatial);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= filters) return;
  int j, k;
  mean[i] = 0;
  for (j = 0; j < batch; ++j) {
    for (k = 0; k < spatial; ++k) {
      int index = j * filters * spatial + i * spatial + k;
      mean[i] += x[index];
    }
  }
  mean[i] *= scale;
}

int main(int argc, char **argv) {
  const int batch = 16, filters = 512, spatial = 14 * 14;
  auto x = bench::random_floats((size_t)batch * filters * spatial, 671, -1.f, 3.f);
  float *dx = bench::to_device(x), *dm = bench::device_zeros<float>(filters);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { bn_mean<<<(filters + 255) / 256, 256>>>(dx, batch, filters, spatial, dm); });
  std::vector<double> want(filters);
  for (int i = 0; i < filters; ++i) {
    double s = 0;
    for (int j = 0; j < batch; ++j)
      for (int k = 0; k < spatial; ++k)
        s += x[(size_t)j * filters * spatial + (size_t)i * spatial + k];
    want[i] = s / (batch * spatial);
  }
  bool ok = bench::all_close(bench::to_host(dm, filters), want, 1e-4, 1e-5);
  return bench::report("bn_mean", ok, ms, 1.0 * batch * filters * spatial, 4.0 * batch * filters * spatial);
}
