// im2col for a k x k convolution without padding, one thread per output
// position and channel, a flattened index split into its coordinates.
#include "bench_common.h"

__global__ void im2col(const float *im, int C, int H, int W, int k, int outH, int outW, float *col) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  int total = C * outH * outW;
  if (index >= total) return;
  int w_out = index % outW;
  int h_out = (index / outW) % outH;
  int c = index / (outW * outH);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      int h = h_out + i, w = w_out + j;
      col[((c * k + i) * k + j) * outH * outW + h_out * outW + w_out] = im[(c * H + h) * W + w];
    }
}

int main(int argc, char **argv) {
  const int C = 64, H = 130, W = 130, k = 3, outH = H - k + 1, outW = W - k + 1;
  auto im = bench::random_floats((size_t)C * H * W, 381);
  const size_t cols = (size_t)C * k * k * outH * outW;
  float *dim = bench::to_device(im), *dcol = bench::device_zeros<float>(cols);
  const int total = C * outH * outW;
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { im2col<<<(total + 255) / 256, 256>>>(dim, C, H, W, k, outH, outW, dcol); });
  std::vector<double> want(cols);
  for (int c = 0; c < C; ++c)
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j)
        for (int y = 0; y < outH; ++y)
          for (int x = 0; x < outW; ++x)
            want[(((size_t)c * k + i) * k + j) * outH * outW + y * outW + x] = im[((size_t)c * H + y + i) * W + x + j];
  bool ok = bench::all_close(bench::to_host(dcol, cols), want, 0, 0);
  return bench::report("im2col", ok, ms, 0.0, 4.0 * C * H * W + 4.0 * cols);
}
