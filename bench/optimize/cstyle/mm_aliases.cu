// Matrix product with the thread's coordinates read into locals first, as
// many guides write it: one thread per output of C = A * B.
#include "bench_common.h"

__global__ void mm_aliases(const float *A, const float *B, float *C, int n) {
  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int Row = by * blockDim.y + ty;
  int Col = bx * blockDim.x + tx;
  if (Row < n && Col < n) {
    float Pvalue = 0;
    for (int k = 0; k < n; ++k)
      Pvalue += A[Row * n + k] * B[k * n + Col];
    C[Row * n + Col] = Pvalue;
  }
}

int main(int argc, char **argv) {
  const int n = 1024;
  auto a = bench::random_floats((size_t)n * n, 115), b = bench::random_floats((size_t)n * n, 116);
  float *da = bench::to_device(a), *db = bench::to_device(b), *dc = bench::device_zeros<float>((size_t)n * n);
  dim3 block(16, 16), grid(n / 16, n / 16);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {}, [&] { mm_aliases<<<grid, block>>>(da, db, dc, n); });
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
  return bench::report("mm_aliases", ok, ms, 2.0 * n * n * n, 12.0 * n * n);
}
