// Naive bias gradient: one thread per column sums the column over the batch.
#include "bench_common.h"

__global__ void bias_grad(int rows, int cols, const float *dy, float *db) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.0f;
  for (int r = 0; r < rows; ++r)
    s += dy[(size_t)r * cols + c];
  db[c] = s;
}

int main(int argc, char **argv) {
  const int rows = 16384, cols = 768;
  auto dy = bench::random_floats((size_t)rows * cols, 46);
  float *ddy = bench::to_device(dy), *ddb = bench::device_zeros<float>(cols);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { bias_grad<<<(cols + 127) / 128, 128>>>(rows, cols, ddy, ddb); });
  std::vector<double> want(cols, 0);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      want[c] += dy[(size_t)r * cols + c];
  bool ok = bench::all_close(bench::to_host(ddb, cols), want, 1e-4, 1e-3);
  return bench::report("bias_grad", ok, ms, 1.0 * rows * cols, 4.0 * rows * cols);
}
