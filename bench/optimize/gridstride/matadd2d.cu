// Sum of two row-major matrices, written as course material often writes it:
// the row index in x, the column in y, two nested grid-stride while loops
// and a fixed launch of 32 x 32 blocks of 16 x 16 threads. Consecutive
// threads of a warp are a row apart.
#include "bench_common.h"

__global__ void matadd2d(int n, const float *a, const float *b, float *c) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  int j = threadIdx.y + blockIdx.y * blockDim.y;
  while (i < n) {
    j = threadIdx.y + blockIdx.y * blockDim.y;
    while (j < n) {
      c[i * n + j] = a[i * n + j] + b[i * n + j];
      j += blockDim.y * gridDim.y;
    }
    i += blockDim.x * gridDim.x;
  }
}

int main(int argc, char **argv) {
  const int n = 4096;
  const size_t count = (size_t)n * n;
  auto a = bench::random_floats(count, 71), b = bench::random_floats(count, 72);
  float *da = bench::to_device(a), *db = bench::to_device(b), *dc = bench::device_zeros<float>(count);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { matadd2d<<<dim3(32, 32), dim3(16, 16)>>>(n, da, db, dc); });
  std::vector<double> want(count);
  for (size_t k = 0; k < count; ++k)
    want[k] = (double)a[k] + b[k];
  bool ok = bench::all_close(bench::to_host(dc, count), want, 1e-6, 1e-6);
  return bench::report("matadd2d", ok, ms, 1.0 * count, 12.0 * count);
}
