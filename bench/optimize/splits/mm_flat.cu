// Naive matrix product over a flattened output: one thread per element of
// C, its row and column the quotient and remainder of a 1-D index.
#include "bench_common.h"

__global__ void mm_flat(float *C, const float *A, const float *B, int M, int K, int N) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= M * N) return;
  int row = id / N;
  int col = id % N;
  float acc = 0.0f;
  for (int e = 0; e < K; ++e)
    acc += A[row * K + e] * B[e * N + col];
  C[row * N + col] = acc;
}

int main(int argc, char **argv) {
  const int M = 1024, K = 1024, N = 1024;
  auto a = bench::random_floats((size_t)M * K, 301), b = bench::random_floats((size_t)K * N, 302);
  float *da = bench::to_device(a), *db = bench::to_device(b), *dc = bench::device_zeros<float>((size_t)M * N);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { mm_flat<<<(M * N + 255) / 256, 256>>>(dc, da, db, M, K, N); });
  std::vector<double> want = bench::matmul_reference(a, b, M, K, N);
  bool ok = bench::all_close(bench::to_host(dc, (size_t)M * N), want, 1e-3, 1e-4);
  return bench::report("mm_flat", ok, ms, 2.0 * M * N * K, 4.0 * ((double)M * K + (double)K * N + (double)M * N));
}
