// Attention scores S = Q Kᵀ · scale per head, one thread per score, the
// head in blockIdx.z and each operand read through a pointer to its row.
#include "bench_common.h"

__global__ void attn_scores(const float *Q, const float *K, float *S, int seq, int d, float scale) {
  int h = blockIdx.z;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < seq && j < seq) {
    const float *q = Q + ((size_t)h * seq + i) * d;
    const float *k = K + ((size_t)h * seq + j) * d;
    float s = 0.f;
    for (int t = 0; t < d; ++t)
      s += q[t] * k[t];
    S[((size_t)h * seq + i) * seq + j] = s * scale;
  }
}

int main(int argc, char **argv) {
  const int heads = 8, seq = 1024, d = 64;
  const float scale = 0.125f;
  auto q = bench::random_floats((size_t)heads * seq * d, 301), k = bench::random_floats((size_t)heads * seq * d, 302);
  float *dq = bench::to_device(q), *dk = bench::to_device(k);
  float *ds = bench::device_zeros<float>((size_t)heads * seq * seq);
  dim3 block(16, 16), grid(seq / 16, seq / 16, heads);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { attn_scores<<<grid, block>>>(dq, dk, ds, seq, d, scale); });
  std::vector<double> want((size_t)heads * seq * seq);
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < seq; ++i)
      for (int j = 0; j < seq; ++j) {
        double s = 0;
        for (int t = 0; t < d; ++t)
          s += (double)q[((size_t)h * seq + i) * d + t] * k[((size_t)h * seq + j) * d + t];
        want[((size_t)h * seq + i) * seq + j] = s * scale;
      }
  bool ok = bench::all_close(bench::to_host(ds, want.size()), want, 1e-4, 1e-4);
  return bench::report("attn_scores", ok, ms, 2.0 * heads * seq * seq * d,
                       4.0 * (2.0 * heads * seq * d + (double)heads * seq * seq));
}
