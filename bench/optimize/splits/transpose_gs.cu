// A transpose written as a grid-stride loop over the flattened matrix,
// launched with a fixed grid of 1024 blocks of 256 threads: each item's row
// and column are the quotient and remainder of the loop's index.
#include "bench_common.h"

__global__ void transpose_gs(const float *in, float *out, int rows, int cols) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows * cols; i += blockDim.x * gridDim.x) {
    int r = i / cols, c = i % cols;
    out[c * rows + r] = in[i];
  }
}

int main(int argc, char **argv) {
  const int rows = 4096, cols = 4096, n = rows * cols;
  auto x = bench::random_floats(n, 306);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { transpose_gs<<<1024, 256>>>(dx, dy, rows, cols); });
  std::vector<double> want = bench::transpose_reference(x, rows, cols);
  bool ok = bench::all_close(bench::to_host(dy, n), want, 0, 0);
  return bench::report("transpose_gs", ok, ms, 0, 8.0 * n);
}
