// Horizontal box blur of an image written C-style: width, height and radius
// in macros, clamped at the borders, one thread per pixel.
#include "bench_common.h"

#define W 4096
#define H 2048
#define RADIUS 8

__global__ void blur_cstyle(const float *in, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int t;
  float acc = 0.0f;
  if (x >= W || y >= H) return;
  for (t = -RADIUS; t <= RADIUS; t++) {
    int xx = min(max(x + t, 0), W - 1);
    acc += in[y * W + xx];
  }
  out[y * W + x] = acc / (2 * RADIUS + 1);
}

int main(int argc, char **argv) {
  const size_t n = (size_t)W * H;
  auto img = bench::random_floats(n, 114);
  float *din = bench::to_device(img), *dout = bench::device_zeros<float>(n);
  dim3 block(32, 8), grid(W / 32, H / 8);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {}, [&] { blur_cstyle<<<grid, block>>>(din, dout); });
  std::vector<double> want(n);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      double acc = 0;
      for (int t = -RADIUS; t <= RADIUS; ++t)
        acc += img[(size_t)y * W + std::min(std::max(x + t, 0), W - 1)];
      want[(size_t)y * W + x] = acc / (2 * RADIUS + 1);
    }
  bool ok = bench::all_close(bench::to_host(dout, n), want, 1e-4, 1e-6);
  return bench::report("blur_cstyle", ok, ms, 2.0 * (2 * RADIUS + 1) * n, 8.0 * n);
}
