// A linear layer with a bias and a ReLU, as training code writes it naively:
// one thread per output, whose sum starts from its column's bias in memory.
#include "bench_common.h"

__global__ void linear_bias(const float *X, const float *W, const float *bias, float *Y, int tokens, int in, int out) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= tokens || col >= out) return;
  float acc = bias[col];
  for (int k = 0; k < in; ++k)
    acc += X[row * in + k] * W[k * out + col];
  Y[row * out + col] = acc > 0.0f ? acc : 0.0f;
}

int main(int argc, char **argv) {
  const int tokens = 1024, in = 768, out = 1024;
  auto x = bench::random_floats((size_t)tokens * in, 131), w = bench::random_floats((size_t)in * out, 132);
  auto b = bench::random_floats(out, 133);
  float *dx = bench::to_device(x), *dw = bench::to_device(w), *db = bench::to_device(b);
  float *dy = bench::device_zeros<float>((size_t)tokens * out);
  dim3 block(16, 16), grid(out / 16, tokens / 16);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { linear_bias<<<grid, block>>>(dx, dw, db, dy, tokens, in, out); });
  std::vector<float> got = bench::to_host(dy, (size_t)tokens * out);
  bool ok = true;
  for (int r = 0; r < tokens && ok; r += 61)
    for (int c = 0; c < out && ok; c += 59) {
      double want = b[c];
      for (int k = 0; k < in; ++k)
        want += (double)x[(size_t)r * in + k] * w[(size_t)k * out + c];
      want = want > 0 ? want : 0;
      ok = std::fabs(got[(size_t)r * out + c] - want) <= 1e-3 * (1 + std::fabs(want));
      if (!ok) std::fprintf(stderr, "Y[%d][%d]: got %g, want %g\n", r, c, got[(size_t)r * out + c], want);
    }
  return bench::report("linear_bias", ok, ms, 2.0 * tokens * in * out,
                       4.0 * ((double)tokens * in + (double)in * out + out + (double)tokens * out));
}
