// Sobel edge magnitude of an 8-bit image, one thread per pixel of a 2-D
// grid, the border left as it is.
#include "bench_common.h"

__global__ void sobel(const unsigned char *in, unsigned char *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int gx = -in[(y - 1) * w + x - 1] + in[(y - 1) * w + x + 1] - 2 * in[y * w + x - 1] + 2 * in[y * w + x + 1] -
           in[(y + 1) * w + x - 1] + in[(y + 1) * w + x + 1];
  int gy = -in[(y - 1) * w + x - 1] - 2 * in[(y - 1) * w + x] - in[(y - 1) * w + x + 1] + in[(y + 1) * w + x - 1] +
           2 * in[(y + 1) * w + x] + in[(y + 1) * w + x + 1];
  int mag = abs(gx) + abs(gy);
  out[y * w + x] = mag > 255 ? 255 : mag;
}

int main(int argc, char **argv) {
  const int w = 8192, h = 4096;
  std::vector<int> pix = bench::random_ints((size_t)w * h, 341, 256);
  std::vector<unsigned char> img(pix.begin(), pix.end());
  unsigned char *din = bench::to_device(img), *dout = bench::device_zeros<unsigned char>((size_t)w * h);
  dim3 block(32, 8), grid(w / 32, h / 8);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { sobel<<<grid, block>>>(din, dout, w, h); });
  std::vector<double> want((size_t)w * h, 0.0);
  for (int y = 1; y < h - 1; ++y)
    for (int x = 1; x < w - 1; ++x) {
      auto p = [&](int yy, int xx) { return (int)img[(size_t)yy * w + xx]; };
      int gx =
          -p(y - 1, x - 1) + p(y - 1, x + 1) - 2 * p(y, x - 1) + 2 * p(y, x + 1) - p(y + 1, x - 1) + p(y + 1, x + 1);
      int gy =
          -p(y - 1, x - 1) - 2 * p(y - 1, x) - p(y - 1, x + 1) + p(y + 1, x - 1) + 2 * p(y + 1, x) + p(y + 1, x + 1);
      want[(size_t)y * w + x] = std::min(255, std::abs(gx) + std::abs(gy));
    }
  std::vector<unsigned char> got = bench::to_host(dout, (size_t)w * h);
  bool ok = bench::all_close(std::vector<float>(got.begin(), got.end()), want, 0, 0);
  return bench::report("sobel", ok, ms, 12.0 * w * h, 2.0 * w * h);
}
