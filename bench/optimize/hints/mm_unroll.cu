// A naive matrix product with `#pragma unroll 8` on its inner loop: one
// thread per output element, rows in y and columns in x.
#include "bench_common.h"

__global__ void mm_unroll(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
#pragma unroll 8
    for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}

int main(int argc, char **argv) {
  const int M = 1024, N = 1024, K = 1024;
  auto a = bench::random_floats((size_t)M * K, 74), b = bench::random_floats((size_t)K * N, 75);
  float *da = bench::to_device(a), *db = bench::to_device(b), *dc = bench::device_zeros<float>((size_t)M * N);
  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { mm_unroll<<<grid, block>>>(da, db, dc, M, N, K); });
  bool ok = bench::all_close(bench::to_host(dc, (size_t)M * N), bench::matmul_reference(a, b, M, K, N), 1e-4, 1e-4);
  return bench::report("mm_unroll", ok, ms, 2.0 * M * N * K, 4.0 * (M * K + K * N + M * N));
}
