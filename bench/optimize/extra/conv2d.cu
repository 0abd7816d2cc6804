// Naive 2-D convolution (5x5, zero padding): one thread per output pixel.
#include "bench_common.h"

__global__ void conv2d(int h, int w, int k, const float *filt, const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int half = k / 2;
  float acc = 0.0f;
  for (int dy = 0; dy < k; ++dy)
    for (int dx = 0; dx < k; ++dx) {
      int yy = y + dy - half, xx = x + dx - half;
      if (yy >= 0 && yy < h && xx >= 0 && xx < w) acc += filt[dy * k + dx] * in[(size_t)yy * w + xx];
    }
  out[(size_t)y * w + x] = acc;
}

int main(int argc, char **argv) {
  const int h = 2048, w = 2048, k = 5;
  auto img = bench::random_floats((size_t)h * w, 47), f = bench::random_floats(k * k, 48);
  float *din = bench::to_device(img), *df = bench::to_device(f), *dout = bench::device_zeros<float>((size_t)h * w);
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { conv2d<<<grid, block>>>(h, w, k, df, din, dout); });
  std::vector<double> want((size_t)h * w);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double acc = 0;
      for (int dy = 0; dy < k; ++dy)
        for (int dx = 0; dx < k; ++dx) {
          int yy = y + dy - k / 2, xx = x + dx - k / 2;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w) acc += f[dy * k + dx] * img[(size_t)yy * w + xx];
        }
      want[(size_t)y * w + x] = acc;
    }
  bool ok = bench::all_close(bench::to_host(dout, (size_t)h * w), want, 1e-4, 1e-4);
  return bench::report("conv2d", ok, ms, 2.0 * h * w * k * k, 8.0 * h * w);
}
