// A 5x5 filter over an image whose borders repeat: both coordinates of
// every tap clamped to the image with min and max. One thread per pixel.
#include "bench_common.h"

__global__ void gauss_clamped(const float *in, const float *w, float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float acc = 0.0f;
  for (int dy = -2; dy <= 2; ++dy)
    for (int dx = -2; dx <= 2; ++dx) {
      int yy = min(max(y + dy, 0), height - 1);
      int xx = min(max(x + dx, 0), width - 1);
      acc += w[(dy + 2) * 5 + dx + 2] * in[yy * width + xx];
    }
  out[y * width + x] = acc;
}

int main(int argc, char **argv) {
  const int width = 4096, height = 2048;
  const size_t n = (size_t)width * height;
  auto img = bench::random_floats(n, 151), f = bench::random_floats(25, 152);
  float *din = bench::to_device(img), *df = bench::to_device(f), *dout = bench::device_zeros<float>(n);
  dim3 block(32, 8), grid(width / 32, height / 8);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { gauss_clamped<<<grid, block>>>(din, df, dout, width, height); });
  std::vector<double> want(n);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double acc = 0;
      for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
          int yy = std::min(std::max(y + dy, 0), height - 1), xx = std::min(std::max(x + dx, 0), width - 1);
          acc += (double)f[(dy + 2) * 5 + dx + 2] * img[(size_t)yy * width + xx];
        }
      want[(size_t)y * width + x] = acc;
    }
  bool ok = bench::all_close(bench::to_host(dout, n), want, 1e-4, 1e-4);
  return bench::report("gauss_clamped", ok, ms, 50.0 * n, 8.0 * n);
}
