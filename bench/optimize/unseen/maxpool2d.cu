// Naive 2x2 max pooling with stride 2 over a batch of feature maps: one thread
// per output element.
#include "bench_common.h"

__global__ void maxpool2d(int maps, int h, int w, const float *in, float *out) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int map = blockIdx.z;
  int oh = h / 2, ow = w / 2;
  if (ox < ow && oy < oh && map < maps) {
    const float *src = in + (size_t)map * h * w;
    float m = src[(2 * oy) * w + 2 * ox];
    m = fmaxf(m, src[(2 * oy) * w + 2 * ox + 1]);
    m = fmaxf(m, src[(2 * oy + 1) * w + 2 * ox]);
    m = fmaxf(m, src[(2 * oy + 1) * w + 2 * ox + 1]);
    out[(size_t)map * oh * ow + oy * ow + ox] = m;
  }
}

int main(int argc, char **argv) {
  const int maps = 64, h = 512, w = 512, oh = h / 2, ow = w / 2;
  auto x = bench::random_floats((size_t)maps * h * w, 66);
  float *din = bench::to_device(x), *dout = bench::device_zeros<float>((size_t)maps * oh * ow);
  dim3 block(32, 8), grid((ow + 31) / 32, (oh + 7) / 8, maps);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { maxpool2d<<<grid, block>>>(maps, h, w, din, dout); });
  std::vector<double> want((size_t)maps * oh * ow);
  for (int mp = 0; mp < maps; ++mp)
    for (int y = 0; y < oh; ++y)
      for (int xo = 0; xo < ow; ++xo) {
        const float *s = &x[(size_t)mp * h * w];
        float m = std::max(std::max(s[2 * y * w + 2 * xo], s[2 * y * w + 2 * xo + 1]),
                           std::max(s[(2 * y + 1) * w + 2 * xo], s[(2 * y + 1) * w + 2 * xo + 1]));
        want[(size_t)mp * oh * ow + y * ow + xo] = m;
      }
  bool ok = bench::all_close(bench::to_host(dout, (size_t)maps * oh * ow), want, 0, 0);
  return bench::report("maxpool2d", ok, ms, 3.0 * maps * oh * ow, 4.0 * maps * h * w + 4.0 * maps * oh * ow);
}
