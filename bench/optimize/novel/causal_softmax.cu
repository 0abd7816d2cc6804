// A causal attention softmax: row i of each head's scores keeps columns 0..i
// and stores zeros after them; one thread per row, the head in blockIdx.y.
#include "bench_common.h"

__global__ void causal_softmax(const float *scores, float *probs, int seq) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int h = blockIdx.y;
  if (i >= seq) return;
  const float *row = scores + ((size_t)h * seq + i) * seq;
  float *out = probs + ((size_t)h * seq + i) * seq;
  float m = -INFINITY;
  for (int j = 0; j <= i; ++j)
    m = fmaxf(m, row[j]);
  float sum = 0.f;
  for (int j = 0; j <= i; ++j)
    sum += __expf(row[j] - m);
  for (int j = 0; j < seq; ++j)
    out[j] = j <= i ? __expf(row[j] - m) / sum : 0.f;
}

int main(int argc, char **argv) {
  const int heads = 8, seq = 1024;
  const size_t total = (size_t)heads * seq * seq;
  auto x = bench::random_floats(total, 571, -4.f, 4.f);
  float *dx = bench::to_device(x), *dp = bench::device_zeros<float>(total);
  dim3 block(128), grid(seq / 128, heads);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { causal_softmax<<<grid, block>>>(dx, dp, seq); });
  std::vector<double> want(total, 0.0);
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < seq; ++i) {
      const float *row = &x[((size_t)h * seq + i) * seq];
      double m = -INFINITY, sum = 0;
      for (int j = 0; j <= i; ++j)
        m = std::max(m, (double)row[j]);
      for (int j = 0; j <= i; ++j)
        sum += std::exp(row[j] - m);
      for (int j = 0; j <= i; ++j)
        want[((size_t)h * seq + i) * seq + j] = std::exp(row[j] - m) / sum;
    }
  bool ok = bench::all_close(bench::to_host(dp, total), want, 1e-3, 1e-5);
  return bench::report("causal_softmax", ok, ms, 4.0 * total, 4.0 * (0.5 * total + total));
}
