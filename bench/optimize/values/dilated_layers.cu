// A stack of dilated causal convolutions (a temporal convolutional
// network), one launch of the same kernel per layer: each layer has its own
// number of taps and dilation, so the loop bound and the stride are
// arguments that take several values over the program's launches.
#include "bench_common.h"

__global__ void dilated_causal(const float *x, const float *w, float *y, int n, int taps, int dilation) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int t = 0; t < taps; ++t) {
    int j = i - t * dilation;
    if (j >= 0) acc += w[t] * x[j];
  }
  y[i] = acc;
}

int main(int argc, char **argv) {
  const int n = 1 << 22, layers = 4;
  const int taps[layers] = {3, 3, 5, 5}, dilation[layers] = {1, 2, 4, 8};
  auto x = bench::random_floats(n, 211);
  std::vector<std::vector<float>> w;
  std::vector<float *> dw;
  for (int l = 0; l < layers; ++l) {
    w.push_back(bench::random_floats(taps[l], 212 + l));
    dw.push_back(bench::to_device(w.back()));
  }
  float *dx = bench::to_device(x), *a = bench::device_zeros<float>(n), *b = bench::device_zeros<float>(n);
  float *dout = bench::device_zeros<float>(n);
  // Each layer reads the previous layer's output.
  const float *src[layers] = {dx, a, b, a};
  float *dst[layers] = {a, b, a, dout};
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {}, [&] {
    for (int l = 0; l < layers; ++l)
      dilated_causal<<<(n + 255) / 256, 256>>>(src[l], dw[l], dst[l], n, taps[l], dilation[l]);
  });
  std::vector<double> cur(x.begin(), x.end()), next(n);
  for (int l = 0; l < layers; ++l) {
    for (int i = 0; i < n; ++i) {
      double acc = 0;
      for (int t = 0; t < taps[l]; ++t)
        if (i - t * dilation[l] >= 0) acc += (double)w[l][t] * (float)cur[i - t * dilation[l]];
      next[i] = (float)acc;
    }
    std::swap(cur, next);
  }
  bool ok = bench::all_close(bench::to_host(dout, n), cur, 1e-4, 1e-5);
  double flops = 0;
  for (int l = 0; l < layers; ++l)
    flops += 2.0 * n * taps[l];
  return bench::report("dilated_layers", ok, ms, flops, 8.0 * n * layers);
}
