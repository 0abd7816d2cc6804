// Naive embedding-bag sum: one thread per bag walks the embedding dimension
// and, for each, sums the rows of its looked-up indices.
#include "bench_common.h"

__global__ void embedding_sum(int bags, int per_bag, int dim, const int *idx, const float *table, float *out) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= bags) return;
  for (int d = 0; d < dim; ++d) {
    float s = 0.0f;
    for (int k = 0; k < per_bag; ++k)
      s += table[(size_t)idx[b * per_bag + k] * dim + d];
    out[(size_t)b * dim + d] = s;
  }
}

int main(int argc, char **argv) {
  const int bags = 4096, per_bag = 16, dim = 256, vocab = 50000;
  auto table = bench::random_floats((size_t)vocab * dim, 44);
  auto idx = bench::random_ints((size_t)bags * per_bag, 45, vocab);
  float *dt = bench::to_device(table), *dout = bench::device_zeros<float>((size_t)bags * dim);
  int *didx = bench::to_device(idx);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { embedding_sum<<<(bags + 63) / 64, 64>>>(bags, per_bag, dim, didx, dt, dout); });
  std::vector<double> want((size_t)bags * dim);
  for (int b = 0; b < bags; ++b)
    for (int d = 0; d < dim; ++d) {
      double s = 0;
      for (int k = 0; k < per_bag; ++k)
        s += table[(size_t)idx[b * per_bag + k] * dim + d];
      want[(size_t)b * dim + d] = s;
    }
  bool ok = bench::all_close(bench::to_host(dout, (size_t)bags * dim), want, 1e-5, 1e-5);
  return bench::report("embedding_sum", ok, ms, 1.0 * bags * per_bag * dim,
                       4.0 * bags * per_bag * dim + 4.0 * bags * dim);
}
