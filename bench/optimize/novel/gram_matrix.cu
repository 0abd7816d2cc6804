// The Gram matrix G = Xᵀ X of a samples × features matrix, one thread per
// entry: entry (i, j) walks the samples down columns i and j.
#include "bench_common.h"

__global__ void gram_matrix(const float *X, float *G, int samples, int features) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < features && j < features) {
    float s = 0.f;
    for (int k = 0; k < samples; ++k)
      s += X[(size_t)k * features + i] * X[(size_t)k * features + j];
    G[(size_t)i * features + j] = s;
  }
}

int main(int argc, char **argv) {
  const int samples = 4096, features = 512;
  auto X = bench::random_floats((size_t)samples * features, 541);
  float *dX = bench::to_device(X), *dG = bench::device_zeros<float>((size_t)features * features);
  dim3 block(16, 16), grid(features / 16, features / 16);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { gram_matrix<<<grid, block>>>(dX, dG, samples, features); });
  std::vector<double> want((size_t)features * features, 0.0);
  for (int k = 0; k < samples; ++k)
    for (int i = 0; i < features; ++i) {
      double xi = X[(size_t)k * features + i];
      for (int j = 0; j < features; ++j)
        want[(size_t)i * features + j] += xi * X[(size_t)k * features + j];
    }
  bool ok = bench::all_close(bench::to_host(dG, want.size()), want, 1e-4, 1e-3);
  return bench::report("gram_matrix", ok, ms, 2.0 * features * features * samples,
                       4.0 * ((double)samples * features + (double)features * features));
}
