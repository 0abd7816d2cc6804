// Average pooling of an NCHW tensor with a run-time window and stride, one
// thread per output: the output's coordinates come from divisions of the
// flat index, and the window's loops run `size` steps each.
#include "bench_common.h"

__global__ void avgpool(const float *in, float *out, int n, int height, int width, int out_h, int out_w, int size,
                        int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int ox = i % out_w, oy = (i / out_w) % out_h, plane = i / (out_w * out_h);
  const float *src = in + (size_t)plane * height * width;
  float sum = 0.0f;
  for (int ky = 0; ky < size; ++ky)
    for (int kx = 0; kx < size; ++kx)
      sum += src[(oy * stride + ky) * width + ox * stride + kx];
  out[i] = sum / (size * size);
}

int main(int argc, char **argv) {
  const int planes = 32 * 64, height = 64, width = 64, size = 3, stride = 2;
  const int out_h = (height - size) / stride + 1, out_w = (width - size) / stride + 1, n = planes * out_h * out_w;
  auto x = bench::random_floats((size_t)planes * height * width, 181);
  float *dx = bench::to_device(x), *dout = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { avgpool<<<(n + 255) / 256, 256>>>(dx, dout, n, height, width, out_h, out_w, size, stride); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) {
    int ox = i % out_w, oy = (i / out_w) % out_h, p = i / (out_w * out_h);
    double s = 0;
    for (int ky = 0; ky < size; ++ky)
      for (int kx = 0; kx < size; ++kx)
        s += x[((size_t)p * height + oy * stride + ky) * width + ox * stride + kx];
    want[i] = s / (size * size);
  }
  bool ok = bench::all_close(bench::to_host(dout, n), want, 1e-5, 1e-6);
  return bench::report("avgpool", ok, ms, (double)n * size * size, 4.0 * planes * height * width + 4.0 * n);
}
