// A matrix product written as a grid-stride loop over the flattened output,
// launched with a fixed grid of 512 blocks of 256 threads: each element's
// row and column are the quotient and remainder of the loop's index.
#include "bench_common.h"

__global__ void mm_gs(const float *A, const float *B, float *C, int M, int K, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < M * N; i += blockDim.x * gridDim.x) {
    int row = i / N;
    int col = i % N;
    float s = 0.0f;
    for (int k = 0; k < K; ++k)
      s += A[row * K + k] * B[k * N + col];
    C[i] = s;
  }
}

int main(int argc, char **argv) {
  const int M = 1024, K = 1024, N = 1024;
  auto a = bench::random_floats((size_t)M * K, 307), b = bench::random_floats((size_t)K * N, 308);
  float *da = bench::to_device(a), *db = bench::to_device(b), *dc = bench::device_zeros<float>((size_t)M * N);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { mm_gs<<<512, 256>>>(da, db, dc, M, K, N); });
  std::vector<double> want = bench::matmul_reference(a, b, M, K, N);
  bool ok = bench::all_close(bench::to_host(dc, (size_t)M * N), want, 1e-3, 1e-4);
  return bench::report("mm_gs", ok, ms, 2.0 * M * N * K, 4.0 * ((double)M * K + (double)K * N + (double)M * N));
}
