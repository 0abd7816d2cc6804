// Naive matrix multiply: one output per thread, every operand from global memory.
#include "bench_common.h"

__global__ void matmul_naive(int n, const float *a, const float *b, float *c) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k)
    acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}

int main(int argc, char **argv) {
  const int n = 1024;
  auto a = bench::random_floats((size_t)n * n, 9), b = bench::random_floats((size_t)n * n, 10);
  float *da = bench::to_device(a), *db = bench::to_device(b), *dc = bench::device_zeros<float>((size_t)n * n);
  dim3 block(16, 16), grid(n / 16, n / 16);
  float ms =
      bench::time_ms(bench::reps_from_args(argc, argv), [] {}, [&] { matmul_naive<<<grid, block>>>(n, da, db, dc); });
  auto c = bench::to_host(dc, (size_t)n * n);
  bool ok = true;
  for (int i = 0; i < n && ok; i += 61)
    for (int j = 0; j < n && ok; j += 59) {
      double want = 0;
      for (int k = 0; k < n; ++k)
        want += double(a[i * n + k]) * b[k * n + j];
      ok = std::fabs(c[i * n + j] - want) <= 1e-3 + 1e-4 * std::fabs(want);
      if (!ok) std::fprintf(stderr, "c[%d][%d]: got %.6f, want %.6f\n", i, j, c[i * n + j], want);
    }
  return bench::report("matmul", ok, ms, 2.0 * n * n * n, 12.0 * n * n);
}
