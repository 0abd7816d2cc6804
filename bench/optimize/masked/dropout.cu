// Dropout in place, as a darknet-style layer writes it: each element is
// zeroed where its random draw falls under the rate and scaled elsewhere, in
// one `?:`; the element is read in one arm only.
#include "bench_common.h"

__global__ void dropout(float *input, int size, const float *rand, float prob, float scale) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id < size) input[id] = (rand[id] < prob) ? 0 : input[id] * scale;
}

int main(int argc, char **argv) {
  const int n = 1 << 25;
  const float prob = 0.5f, scale = 2.0f;
  auto x = bench::random_floats(n, 83), r = bench::random_floats(n, 84, 0.0f, 1.0f);
  float *dx = bench::to_device(x), *dr = bench::to_device(r), *d0 = bench::to_device(x);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv),
      [&] { CHECK(cudaMemcpy(dx, d0, n * sizeof(float), cudaMemcpyDeviceToDevice)); },
      [&] { dropout<<<(n + 255) / 256, 256>>>(dx, n, dr, prob, scale); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i)
    want[i] = r[i] < prob ? 0.0 : (double)(x[i] * scale);
  bool ok = bench::all_close(bench::to_host(dx, n), want, 0, 0);
  return bench::report("dropout", ok, ms, n, 12.0 * n);
}
