// A depthwise 3x3 convolution over NCHW channels, zero-padded, one thread
// per output pixel, the channel in blockIdx.z.
#include "bench_common.h"

__global__ void depthwise3x3(const float *in, const float *w, float *out, int H, int W) {
  int c = blockIdx.z;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  const float *ip = in + (size_t)c * H * W;
  float acc = 0.f;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int yy = y + dy, xx = x + dx;
      if (yy >= 0 && yy < H && xx >= 0 && xx < W) acc += ip[yy * W + xx] * w[c * 9 + (dy + 1) * 3 + (dx + 1)];
    }
  out[(size_t)c * H * W + y * W + x] = acc;
}

int main(int argc, char **argv) {
  const int C = 128, H = 256, W = 256;
  auto x = bench::random_floats((size_t)C * H * W, 351), wt = bench::random_floats((size_t)C * 9, 352);
  float *dx = bench::to_device(x), *dw = bench::to_device(wt), *dy = bench::device_zeros<float>((size_t)C * H * W);
  dim3 block(16, 16), grid(W / 16, H / 16, C);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { depthwise3x3<<<grid, block>>>(dx, dw, dy, H, W); });
  std::vector<double> want((size_t)C * H * W);
  for (int c = 0; c < C; ++c)
    for (int y = 0; y < H; ++y)
      for (int xo = 0; xo < W; ++xo) {
        float acc = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            int yy = y + dy, xx = xo + dx;
            if (yy >= 0 && yy < H && xx >= 0 && xx < W)
              acc += x[(size_t)c * H * W + yy * W + xx] * wt[c * 9 + (dy + 1) * 3 + (dx + 1)];
          }
        want[(size_t)c * H * W + y * W + xo] = acc;
      }
  bool ok = bench::all_close(bench::to_host(dy, want.size()), want, 1e-5, 1e-5);
  return bench::report("depthwise3x3", ok, ms, 18.0 * C * H * W, 8.0 * C * H * W);
}
