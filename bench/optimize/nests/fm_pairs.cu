// The pairwise term of a factorization machine, written as the model reads:
// one thread per sample sums the products of every pair of its features'
// embeddings, a < b, the inner loop starting past the outer one.
#include "bench_common.h"

__global__ void fm_pairs(const float *emb, float *out, int samples, int fields, int dim) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < samples) {
    const float *e = emb + (size_t)s * fields * dim;
    float acc = 0.f;
    for (int a = 0; a < fields; ++a)
      for (int b = a + 1; b < fields; ++b)
        for (int k = 0; k < dim; ++k)
          acc += e[a * dim + k] * e[b * dim + k];
    out[s] = acc;
  }
}

int main(int argc, char **argv) {
  const int samples = 4096, fields = 24, dim = 16;
  auto emb = bench::random_floats((size_t)samples * fields * dim, 689, -1.f, 1.f);
  float *de = bench::to_device(emb), *dout = bench::device_zeros<float>(samples);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { fm_pairs<<<(samples + 127) / 128, 128>>>(de, dout, samples, fields, dim); });
  std::vector<double> want(samples);
  for (int s = 0; s < samples; ++s) {
    const float *e = emb.data() + (size_t)s * fields * dim;
    double acc = 0;
    for (int a = 0; a < fields; ++a)
      for (int b = a + 1; b < fields; ++b)
        for (int k = 0; k < dim; ++k)
          acc += (double)e[a * dim + k] * e[b * dim + k];
    want[s] = acc;
  }
  bool ok = bench::all_close(bench::to_host(dout, samples), want, 1e-3, 1e-3);
  const double pairs = fields * (fields - 1) / 2.0;
  return bench::report("fm_pairs", ok, ms, 2.0 * samples * pairs * dim, 4.0 * samples * (fields * dim + 1));
}
