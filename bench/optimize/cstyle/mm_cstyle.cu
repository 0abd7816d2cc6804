// Integer matrix product written C-style: the size in a macro, the loop's
// variable declared with the accumulator before the loop, one thread per
// output.
#include "bench_common.h"

#define N 1024

__global__ void mm_cstyle(const int *a, const int *b, int *c) {
  int k, sum = 0;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < N && col < N) {
    for (k = 0; k < N; k++)
      sum += a[row * N + k] * b[k * N + col];
    c[row * N + col] = sum;
  }
}

int main(int argc, char **argv) {
  auto a = bench::random_ints(N * N, 111, 16), b = bench::random_ints(N * N, 112, 16);
  int *da = bench::to_device(a), *db = bench::to_device(b), *dc = bench::device_zeros<int>(N * N);
  dim3 block(16, 16), grid(N / 16, N / 16);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {}, [&] { mm_cstyle<<<grid, block>>>(da, db, dc); });
  std::vector<int> got = bench::to_host(dc, N * N);
  bool ok = true;
  for (int r = 0; r < N && ok; r += 61)
    for (int c = 0; c < N && ok; c += 59) {
      int want = 0;
      for (int k = 0; k < N; ++k)
        want += a[r * N + k] * b[k * N + c];
      ok = got[r * N + c] == want;
      if (!ok) std::fprintf(stderr, "c[%d][%d]: got %d, want %d\n", r, c, got[r * N + c], want);
    }
  return bench::report("mm_cstyle", ok, ms, 2.0 * N * N * N, 12.0 * N * N);
}
