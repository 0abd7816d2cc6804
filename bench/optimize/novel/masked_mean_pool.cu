// Masked mean pooling of a batch of sequences, [batch, seq, hidden] -> [batch,
// hidden]: one thread per (sample, feature) walks the sequence and averages the
// positions its sample's mask keeps.
#include "bench_common.h"

__global__ void masked_mean_pool(const float *x, const int *mask, float *out, int batch, int seq, int hidden) {
  int h = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y;
  if (h < hidden && b < batch) {
    float acc = 0.f;
    int kept = 0;
    for (int s = 0; s < seq; ++s) {
      if (mask[b * seq + s]) {
        acc += x[((size_t)b * seq + s) * hidden + h];
        kept += 1;
      }
    }
    out[(size_t)b * hidden + h] = kept > 0 ? acc / kept : 0.f;
  }
}

int main(int argc, char **argv) {
  const int batch = 64, seq = 512, hidden = 768;
  auto x = bench::random_floats((size_t)batch * seq * hidden, 531);
  std::vector<int> mask = bench::random_ints((size_t)batch * seq, 532, 4), len = bench::random_ints(batch, 533, seq);
  for (int b = 0; b < batch; ++b)
    for (int s = 0; s < seq; ++s)
      mask[(size_t)b * seq + s] = s <= len[b] && mask[(size_t)b * seq + s] != 0; // padding, then dropped tokens
  float *dx = bench::to_device(x), *dout = bench::device_zeros<float>((size_t)batch * hidden);
  int *dm = bench::to_device(mask);
  dim3 block(128), grid((hidden + 127) / 128, batch);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { masked_mean_pool<<<grid, block>>>(dx, dm, dout, batch, seq, hidden); });
  std::vector<double> want((size_t)batch * hidden);
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < hidden; ++h) {
      double acc = 0;
      int kept = 0;
      for (int s = 0; s < seq; ++s)
        if (mask[(size_t)b * seq + s]) {
          acc += x[((size_t)b * seq + s) * hidden + h];
          ++kept;
        }
      want[(size_t)b * hidden + h] = kept > 0 ? acc / kept : 0.0;
    }
  bool ok = bench::all_close(bench::to_host(dout, want.size()), want, 1e-3, 1e-4);
  return bench::report("masked_mean_pool", ok, ms, 1.0 * batch * seq * hidden,
                       4.0 * ((double)batch * seq * hidden + batch * seq + batch * hidden));
}
