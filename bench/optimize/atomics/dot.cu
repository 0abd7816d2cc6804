// A naive dot product: every thread adds its product to the result with one
// atomic, as course material and quick ports write a global sum.
#include "bench_common.h"

__global__ void dot(int n, const float *a, const float *b, float *result) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(result, a[i] * b[i]);
}

int main(int argc, char **argv) {
  const int n = 1 << 22;
  auto a = bench::random_floats(n, 71), b = bench::random_floats(n, 72);
  float *da = bench::to_device(a), *db = bench::to_device(b), *dr = bench::device_zeros<float>(1);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [&] { cudaMemset(dr, 0, sizeof(float)); },
      [&] { dot<<<(n + 255) / 256, 256>>>(n, da, db, dr); });
  double want = 0, scale = 0;
  for (int i = 0; i < n; ++i)
    want += (double)a[i] * b[i], scale += std::fabs((double)a[i] * b[i]);
  // Float atomics add in any order: what reordering n terms may cost.
  bool ok = bench::all_close(bench::to_host(dr, 1), {want}, 0, 1e-5 * scale);
  return bench::report("dot", ok, ms, 2.0 * n, 8.0 * n);
}
