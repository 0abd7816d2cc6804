// Naive 7-point stencil over an N^3 grid, as textbooks write it: one thread
// per cell in 8x8x8 blocks, unsigned indexes, the guard around the body.
#include "bench_common.h"

__global__ void stencil7(const float *in, float *out, unsigned int N, float c0, float c1, float c2, float c3, float c4,
                         float c5, float c6) {
  unsigned int i = blockIdx.z * blockDim.z + threadIdx.z;
  unsigned int j = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < N - 1 && j >= 1 && j < N - 1 && k >= 1 && k < N - 1) {
    out[i * N * N + j * N + k] = c0 * in[i * N * N + j * N + k] + c1 * in[i * N * N + j * N + (k - 1)] +
                                 c2 * in[i * N * N + j * N + (k + 1)] + c3 * in[i * N * N + (j - 1) * N + k] +
                                 c4 * in[i * N * N + (j + 1) * N + k] + c5 * in[(i - 1) * N * N + j * N + k] +
                                 c6 * in[(i + 1) * N * N + j * N + k];
  }
}

int main(int argc, char **argv) {
  const unsigned n = 256;
  const size_t cells = (size_t)n * n * n;
  const float c[7] = {0.4f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f};
  auto x = bench::random_floats(cells, 61);
  float *din = bench::to_device(x), *dout = bench::device_zeros<float>(cells);
  const dim3 block(8, 8, 8), grid((n + 7) / 8, (n + 7) / 8, (n + 7) / 8);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {}, [&] {
    stencil7<<<grid, block>>>(din, dout, n, c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
  });
  std::vector<double> want(cells, 0.0);
  for (size_t i = 1; i + 1 < n; ++i)
    for (size_t j = 1; j + 1 < n; ++j)
      for (size_t k = 1; k + 1 < n; ++k) {
        size_t at = (i * n + j) * n + k;
        want[at] = (double)c[0] * x[at] + (double)c[1] * x[at - 1] + (double)c[2] * x[at + 1] +
                   (double)c[3] * x[at - n] + (double)c[4] * x[at + n] + (double)c[5] * x[at - n * n] +
                   (double)c[6] * x[at + n * n];
      }
  bool ok = bench::all_close(bench::to_host(dout, cells), want, 1e-5, 1e-5);
  return bench::report("stencil7", ok, ms, 13.0 * (n - 2) * (n - 2) * (n - 2), 8.0 * cells);
}
