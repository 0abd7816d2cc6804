// A 5x5 box blur over a batch of 16 images, one image per blockIdx.z, the
// taps' coordinates clamped to the image: per-channel filtering as image and
// deep-learning code launches it.
#include "bench_common.h"

__global__ void batch_blur(const float *in, float *out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int img = blockIdx.z;
  if (x >= width || y >= height) return;
  float acc = 0.0f;
  for (int dy = -2; dy <= 2; ++dy)
    for (int dx = -2; dx <= 2; ++dx) {
      int yy = min(max(y + dy, 0), height - 1), xx = min(max(x + dx, 0), width - 1);
      acc += in[(img * height + yy) * width + xx];
    }
  out[(img * height + y) * width + x] = acc * (1.0f / 25.0f);
}

int main(int argc, char **argv) {
  const int width = 1024, height = 512, batch = 16;
  const size_t n = (size_t)width * height * batch;
  auto img = bench::random_floats(n, 171);
  float *din = bench::to_device(img), *dout = bench::device_zeros<float>(n);
  dim3 block(32, 8), grid(width / 32, height / 8, batch);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { batch_blur<<<grid, block>>>(din, dout, width, height); });
  std::vector<double> want(n);
  for (int b = 0; b < batch; ++b)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        double acc = 0;
        for (int dy = -2; dy <= 2; ++dy)
          for (int dx = -2; dx <= 2; ++dx) {
            int yy = std::min(std::max(y + dy, 0), height - 1), xx = std::min(std::max(x + dx, 0), width - 1);
            acc += img[((size_t)b * height + yy) * width + xx];
          }
        want[((size_t)b * height + y) * width + x] = acc / 25.0;
      }
  bool ok = bench::all_close(bench::to_host(dout, n), want, 1e-4, 1e-5);
  return bench::report("batch_blur", ok, ms, 26.0 * n, 8.0 * n);
}
