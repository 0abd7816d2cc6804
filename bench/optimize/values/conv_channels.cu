// A 2-D convolution over several input channels with zero padding, one
// thread per output pixel and one output channel per blockIdx.z: the
// channel and the k x k taps are run-time loop bounds.
#include "bench_common.h"

__global__ void conv_channels(const float *in, const float *filt, float *out, int channels, int height, int width,
                              int k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, f = blockIdx.z;
  if (x >= width || y >= height) return;
  int pad = k / 2;
  float acc = 0.0f;
  for (int c = 0; c < channels; ++c)
    for (int ky = 0; ky < k; ++ky)
      for (int kx = 0; kx < k; ++kx) {
        int yy = y + ky - pad, xx = x + kx - pad;
        if (yy >= 0 && yy < height && xx >= 0 && xx < width)
          acc += filt[((f * channels + c) * k + ky) * k + kx] * in[(c * height + yy) * width + xx];
      }
  out[(f * height + y) * width + x] = acc;
}

int main(int argc, char **argv) {
  const int channels = 16, filters = 16, height = 256, width = 256, k = 3;
  auto img = bench::random_floats((size_t)channels * height * width, 191);
  auto w = bench::random_floats((size_t)filters * channels * k * k, 192);
  float *din = bench::to_device(img), *dw = bench::to_device(w);
  float *dout = bench::device_zeros<float>((size_t)filters * height * width);
  dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16, filters);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { conv_channels<<<grid, block>>>(din, dw, dout, channels, height, width, k); });
  std::vector<double> want((size_t)filters * height * width);
  for (int f = 0; f < filters; ++f)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        double acc = 0;
        for (int c = 0; c < channels; ++c)
          for (int ky = 0; ky < k; ++ky)
            for (int kx = 0; kx < k; ++kx) {
              int yy = y + ky - k / 2, xx = x + kx - k / 2;
              if (yy >= 0 && yy < height && xx >= 0 && xx < width)
                acc += (double)w[((f * channels + c) * k + ky) * k + kx] * img[((size_t)c * height + yy) * width + xx];
            }
        want[((size_t)f * height + y) * width + x] = acc;
      }
  bool ok = bench::all_close(bench::to_host(dout, want.size()), want, 1e-4, 1e-4);
  const double outputs = (double)filters * height * width;
  return bench::report("conv_channels", ok, ms, 2.0 * outputs * channels * k * k,
                       4.0 * channels * height * width + 4.0 * outputs);
}
