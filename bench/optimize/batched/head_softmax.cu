// Naive attention-style softmax over a [heads][rows][cols] score tensor: one
// thread per row in x, the head in blockIdx.y.
#include "bench_common.h"

__global__ void head_softmax(int rows, int cols, const float *scores, float *probs) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int h = blockIdx.y;
  if (r < rows) {
    size_t base = ((size_t)h * rows + r) * cols;
    float m = scores[base];
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, scores[base + j]);
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += expf(scores[base + j] - m);
    for (int j = 0; j < cols; ++j)
      probs[base + j] = expf(scores[base + j] - m) / s;
  }
}

int main(int argc, char **argv) {
  const int heads = 8, rows = 1024, cols = 1024;
  const size_t n = (size_t)heads * rows * cols;
  auto x = bench::random_floats(n, 91, -4.0f, 4.0f);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { head_softmax<<<dim3((rows + 127) / 128, heads), 128>>>(rows, cols, dx, dy); });
  std::vector<double> want(n);
  for (size_t row = 0; row < (size_t)heads * rows; ++row) {
    const float *in = x.data() + row * cols;
    double m = in[0], s = 0;
    for (int j = 1; j < cols; ++j)
      m = std::max(m, (double)in[j]);
    for (int j = 0; j < cols; ++j)
      s += std::exp(in[j] - m);
    for (int j = 0; j < cols; ++j)
      want[row * cols + j] = std::exp(in[j] - m) / s;
  }
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-4, 1e-7);
  return bench::report("head_softmax", ok, ms, 5.0 * n, 8.0 * n);
}
