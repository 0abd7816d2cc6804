// Nearest-neighbour upsampling of an NCHW tensor by a run-time factor, one
// thread per output element: every coordinate is a division of the flat
// index.
#include "bench_common.h"

__global__ void upsample(const float *in, float *out, int n, int width, int height, int scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int ow = width * scale, oh = height * scale;
  int x = i % ow, y = (i / ow) % oh, plane = i / (ow * oh);
  out[i] = in[((size_t)plane * height + y / scale) * width + x / scale];
}

int main(int argc, char **argv) {
  const int planes = 32 * 32, height = 48, width = 48, scale = 2;
  const int n = planes * height * scale * width * scale;
  auto x = bench::random_floats((size_t)planes * height * width, 201);
  float *dx = bench::to_device(x), *dout = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { upsample<<<(n + 255) / 256, 256>>>(dx, dout, n, width, height, scale); });
  std::vector<double> want(n);
  const int ow = width * scale, oh = height * scale;
  for (int i = 0; i < n; ++i) {
    int xo = i % ow, yo = (i / ow) % oh, p = i / (ow * oh);
    want[i] = x[((size_t)p * height + yo / scale) * width + xo / scale];
  }
  bool ok = bench::all_close(bench::to_host(dout, n), want, 0, 0);
  return bench::report("upsample", ok, ms, 0, 4.0 * planes * height * width + 4.0 * n);
}
