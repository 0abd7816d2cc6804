// A 5x5 box blur over a flattened image, one thread per pixel, its x and y
// the remainder and quotient of a 1-D index; pixels past the borders are
// skipped and the sum divided by the pixels read.
#include "bench_common.h"

__global__ void blur_flat(const float *in, float *out, int width, int height) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= width * height) return;
  int x = idx % width;
  int y = idx / width;
  float sum = 0.0f;
  int count = 0;
  for (int dy = -2; dy <= 2; ++dy)
    for (int dx = -2; dx <= 2; ++dx) {
      int xx = x + dx, yy = y + dy;
      if (xx >= 0 && xx < width && yy >= 0 && yy < height) {
        sum += in[yy * width + xx];
        ++count;
      }
    }
  out[idx] = sum / count;
}

int main(int argc, char **argv) {
  const int width = 3000, height = 2000, n = width * height;
  auto img = bench::random_floats(n, 305);
  float *din = bench::to_device(img), *dout = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { blur_flat<<<(n + 255) / 256, 256>>>(din, dout, width, height); });
  std::vector<double> want(n);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float sum = 0.0f;
      int count = 0;
      for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
          int xx = x + dx, yy = y + dy;
          if (xx >= 0 && xx < width && yy >= 0 && yy < height) {
            sum += img[(size_t)yy * width + xx];
            ++count;
          }
        }
      want[(size_t)y * width + x] = sum / count;
    }
  bool ok = bench::all_close(bench::to_host(dout, n), want, 1e-6, 1e-6);
  return bench::report("blur_flat", ok, ms, 25.0 * n, 8.0 * n);
}
