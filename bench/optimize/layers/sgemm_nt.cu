// C = A · Bᵀ with A (M × K) and B (N × K) both row-major, as a linear layer
// stores its weights: one thread per entry of C walks a row of A and a row of B.
#include "bench_common.h"

__global__ void sgemm_nt(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k)
      acc += A[row * K + k] * B[col * K + k];
    C[row * N + col] = acc;
  }
}

int main(int argc, char **argv) {
  const int M = 1024, N = 1024, K = 1024;
  auto A = bench::random_floats((size_t)M * K, 631), B = bench::random_floats((size_t)N * K, 632);
  float *dA = bench::to_device(A), *dB = bench::to_device(B), *dC = bench::device_zeros<float>((size_t)M * N);
  dim3 block(16, 16), grid(N / 16, M / 16);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { sgemm_nt<<<grid, block>>>(dA, dB, dC, M, N, K); });
  std::vector<float> Bt((size_t)K * N);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      Bt[(size_t)k * N + n] = B[(size_t)n * K + k];
  auto want = bench::matmul_reference(A, Bt, M, K, N);
  bool ok = bench::all_close(bench::to_host(dC, want.size()), want, 1e-4, 1e-3);
  return bench::report("sgemm_nt", ok, ms, 2.0 * M * N * K, 4.0 * ((double)M * K + (double)N * K + (double)M * N));
}
