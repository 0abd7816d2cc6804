// The gradient of an embedding lookup: each token's output gradient added
// to its row of the table, one block per token, one thread per feature.
#include "bench_common.h"

__global__ void embedding_backward(const int *ids, const float *grad_out, float *grad_table, int tokens, int dim) {
  int t = blockIdx.x;
  int d = threadIdx.x;
  if (t < tokens && d < dim) atomicAdd(&grad_table[(size_t)ids[t] * dim + d], grad_out[(size_t)t * dim + d]);
}

int main(int argc, char **argv) {
  const int tokens = 65536, dim = 256, vocab = 4096;
  std::vector<int> ids = bench::random_ints(tokens, 361, vocab);
  auto g = bench::random_floats((size_t)tokens * dim, 362);
  int *dids = bench::to_device(ids);
  float *dg = bench::to_device(g), *dt = bench::device_zeros<float>((size_t)vocab * dim);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [&] { CHECK(cudaMemset(dt, 0, sizeof(float) * vocab * dim)); },
      [&] { embedding_backward<<<tokens, dim>>>(dids, dg, dt, tokens, dim); });
  std::vector<double> want((size_t)vocab * dim, 0.0);
  for (int t = 0; t < tokens; ++t)
    for (int d = 0; d < dim; ++d)
      want[(size_t)ids[t] * dim + d] += g[(size_t)t * dim + d];
  bool ok = bench::all_close(bench::to_host(dt, want.size()), want, 1e-4, 1e-4);
  return bench::report("embedding_backward", ok, ms, 1.0 * tokens * dim, 4.0 * tokens * dim * 2 + 4.0 * tokens);
}
