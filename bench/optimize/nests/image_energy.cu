// Per-image energy (sum of squares) over channels and pixels: one thread
// per image of a small batch, two nested loops over a long range.
#include "bench_common.h"

__global__ void image_energy(const float *img, float *energy, int images, int channels, int pixels) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < images) {
    float e = 0.f;
    for (int c = 0; c < channels; c++)
      for (int p = 0; p < pixels; p++) {
        float v = img[((size_t)b * channels + c) * pixels + p];
        e += v * v;
      }
    energy[b] = e;
  }
}

int main(int argc, char **argv) {
  const int images = 64, channels = 3, pixels = 224 * 224;
  auto img = bench::random_floats((size_t)images * channels * pixels, 673, -1.f, 1.f);
  float *di = bench::to_device(img), *de = bench::device_zeros<float>(images);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { image_energy<<<1, 64>>>(di, de, images, channels, pixels); });
  std::vector<double> want(images);
  for (int b = 0; b < images; ++b) {
    double e = 0;
    for (size_t q = 0; q < (size_t)channels * pixels; ++q) {
      double v = img[(size_t)b * channels * pixels + q];
      e += v * v;
    }
    want[b] = e;
  }
  bool ok = bench::all_close(bench::to_host(de, images), want, 1e-4, 1e-3);
  return bench::report("image_energy", ok, ms, 2.0 * images * channels * pixels, 4.0 * images * channels * pixels);
}
