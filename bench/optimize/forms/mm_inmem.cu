// Matrix product that accumulates straight into its output: C's element is
// zeroed, then each product is added to it in memory. One thread per output.
#include "bench_common.h"

__global__ void mm_inmem(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    C[row * n + col] = 0;
    for (int k = 0; k < n; k++)
      C[row * n + col] += A[row * n + k] * B[k * n + col];
  }
}

int main(int argc, char **argv) {
  const int n = 1024;
  auto a = bench::random_floats((size_t)n * n, 121), b = bench::random_floats((size_t)n * n, 122);
  float *da = bench::to_device(a), *db = bench::to_device(b), *dc = bench::device_zeros<float>((size_t)n * n);
  dim3 block(16, 16), grid(n / 16, n / 16);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { mm_inmem<<<grid, block>>>(da, db, dc, n); });
  std::vector<float> got = bench::to_host(dc, (size_t)n * n);
  bool ok = true;
  for (int r = 0; r < n && ok; r += 61)
    for (int c = 0; c < n && ok; c += 59) {
      double want = 0;
      for (int k = 0; k < n; ++k)
        want += (double)a[(size_t)r * n + k] * b[(size_t)k * n + c];
      ok = std::fabs(got[(size_t)r * n + c] - want) <= 1e-3 * (1 + std::fabs(want));
      if (!ok) std::fprintf(stderr, "C[%d][%d]: got %g, want %g\n", r, c, got[(size_t)r * n + c], want);
    }
  return bench::report("mm_inmem", ok, ms, 2.0 * n * n * n, 12.0 * n * n);
}
