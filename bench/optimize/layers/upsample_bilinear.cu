// 2x bilinear upsampling of a single-channel image (align_corners = false),
// one thread per output pixel of a 2-D grid.
#include "bench_common.h"

__global__ void upsample_bilinear(const float *in, float *out, int H, int W) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int OW = 2 * W, OH = 2 * H;
  if (ox < OW && oy < OH) {
    float sx = fmaxf((ox + 0.5f) * 0.5f - 0.5f, 0.f), sy = fmaxf((oy + 0.5f) * 0.5f - 0.5f, 0.f);
    int x0 = (int)sx, y0 = (int)sy;
    int x1 = min(x0 + 1, W - 1), y1 = min(y0 + 1, H - 1);
    float fx = sx - x0, fy = sy - y0;
    float top = in[y0 * W + x0] * (1.f - fx) + in[y0 * W + x1] * fx;
    float bot = in[y1 * W + x0] * (1.f - fx) + in[y1 * W + x1] * fx;
    out[oy * OW + ox] = top * (1.f - fy) + bot * fy;
  }
}

int main(int argc, char **argv) {
  const int H = 2048, W = 2048;
  auto in = bench::random_floats((size_t)H * W, 651);
  float *din = bench::to_device(in), *dout = bench::device_zeros<float>((size_t)4 * H * W);
  dim3 block(32, 8), grid(2 * W / 32, 2 * H / 8);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { upsample_bilinear<<<grid, block>>>(din, dout, H, W); });
  std::vector<double> want((size_t)4 * H * W);
  for (int oy = 0; oy < 2 * H; ++oy)
    for (int ox = 0; ox < 2 * W; ++ox) {
      float sx = std::max((ox + 0.5f) * 0.5f - 0.5f, 0.f), sy = std::max((oy + 0.5f) * 0.5f - 0.5f, 0.f);
      int x0 = (int)sx, y0 = (int)sy, x1 = std::min(x0 + 1, W - 1), y1 = std::min(y0 + 1, H - 1);
      double fx = sx - x0, fy = sy - y0;
      double top = in[y0 * W + x0] * (1 - fx) + in[y0 * W + x1] * fx;
      double bot = in[y1 * W + x0] * (1 - fx) + in[y1 * W + x1] * fx;
      want[(size_t)oy * 2 * W + ox] = top * (1 - fy) + bot * fy;
    }
  bool ok = bench::all_close(bench::to_host(dout, want.size()), want, 1e-5, 1e-5);
  return bench::report("upsample_bilinear", ok, ms, 9.0 * 4 * H * W, 4.0 * 5.0 * H * W);
}
