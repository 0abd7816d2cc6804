// A layer's per-filter gradient term, as deep-learning frameworks write it
// naively: one thread per filter sums over the batch and the spatial
// positions straight into its output, declared C-style, then scales it.
#include "bench_common.h"

__global__ void filter_sums(const float *delta, const float *x, const float *mean, float *out, int batch, int filters,
                            int spatial) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= filters) return;
  int j, k;
  out[i] = 0;
  for (j = 0; j < batch; ++j)
    for (k = 0; k < spatial; ++k) {
      int index = (j * filters + i) * spatial + k;
      out[i] += delta[index] * (x[index] - mean[i]);
    }
  out[i] *= -0.5f;
}

int main(int argc, char **argv) {
  const int batch = 16, filters = 256, spatial = 1024;
  const size_t n = (size_t)batch * filters * spatial;
  auto d = bench::random_floats(n, 131), x = bench::random_floats(n, 132), m = bench::random_floats(filters, 133);
  float *dd = bench::to_device(d), *dx = bench::to_device(x), *dm = bench::to_device(m);
  float *dout = bench::device_zeros<float>(filters);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { filter_sums<<<(filters + 127) / 128, 128>>>(dd, dx, dm, dout, batch, filters, spatial); });
  std::vector<double> want(filters);
  for (int i = 0; i < filters; ++i) {
    double s = 0;
    for (int j = 0; j < batch; ++j)
      for (int k = 0; k < spatial; ++k) {
        size_t index = ((size_t)j * filters + i) * spatial + k;
        s += (double)d[index] * (x[index] - m[i]);
      }
    want[i] = -0.5 * s;
  }
  bool ok = bench::all_close(bench::to_host(dout, filters), want, 1e-3, 1e-3);
  return bench::report("filter_sums", ok, ms, 3.0 * n, 8.0 * n);
}
