// Naive symmetrization (A + A^T) / 2: one thread per element, one read along
// the row and one across.
#include "bench_common.h"

__global__ void symmetrize(int n, const float *a, float *s) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) s[row * n + col] = 0.5f * (a[row * n + col] + a[col * n + row]);
}

int main(int argc, char **argv) {
  const int n = 4096;
  auto a = bench::random_floats((size_t)n * n, 72);
  float *da = bench::to_device(a), *ds = bench::device_zeros<float>((size_t)n * n);
  dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {}, [&] { symmetrize<<<grid, block>>>(n, da, ds); });
  std::vector<double> want((size_t)n * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      want[(size_t)r * n + c] = 0.5f * (a[(size_t)r * n + c] + a[(size_t)c * n + r]);
  bool ok = bench::all_close(bench::to_host(ds, (size_t)n * n), want, 0, 0);
  return bench::report("symmetrize", ok, ms, 2.0 * n * n, 8.0 * n * n);
}
