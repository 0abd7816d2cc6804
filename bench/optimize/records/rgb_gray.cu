// Grayscale conversion of an interleaved 8-bit RGB image, one thread per
// pixel: its three bytes lie together (r, g, b).
#include "bench_common.h"

__global__ void rgb_gray(const unsigned char *rgb, unsigned char *gray, int pixels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pixels) {
    float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    gray[i] = (unsigned char)(0.299f * r + 0.587f * g + 0.114f * b + 0.5f);
  }
}

int main(int argc, char **argv) {
  const int pixels = 4096 * 4096;
  auto bytes = bench::random_ints(3 * (size_t)pixels, 661, 256);
  std::vector<unsigned char> rgb(bytes.begin(), bytes.end());
  unsigned char *drgb = bench::to_device(rgb), *dgray = bench::device_zeros<unsigned char>(pixels);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { rgb_gray<<<(pixels + 255) / 256, 256>>>(drgb, dgray, pixels); });
  auto got = bench::to_host(dgray, pixels);
  bool ok = true;
  for (int i = 0; i < pixels && ok; ++i) {
    float v = 0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2] + 0.5f;
    if (std::abs((int)got[i] - (int)(unsigned char)v) > 1) {
      std::fprintf(stderr, "mismatch at %d: got %d, want %d\n", i, got[i], (int)(unsigned char)v);
      ok = false;
    }
  }
  return bench::report("rgb_gray", ok, ms, 6.0 * pixels, 4.0 * pixels);
}
