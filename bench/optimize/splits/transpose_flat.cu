// Naive transpose over a flattened input: one thread per element, its row
// and column the quotient and remainder of a 1-D index; the store strides.
#include "bench_common.h"

__global__ void transpose_flat(const float *in, float *out, int rows, int cols) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < rows * cols) {
    int r = idx / cols;
    int c = idx % cols;
    out[c * rows + r] = in[idx];
  }
}

int main(int argc, char **argv) {
  const int rows = 4096, cols = 4096, n = rows * cols;
  auto x = bench::random_floats(n, 303);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { transpose_flat<<<(n + 255) / 256, 256>>>(dx, dy, rows, cols); });
  std::vector<double> want = bench::transpose_reference(x, rows, cols);
  bool ok = bench::all_close(bench::to_host(dy, n), want, 0, 0);
  return bench::report("transpose_flat", ok, ms, 0, 8.0 * n);
}
