// Euclidean norms of the columns of a column-major matrix, written C-style:
// the accumulator, a temporary and a pointer declared first, one thread per
// column walking down it.
#include "bench_common.h"

__global__ void colnorm_cstyle(int rows, int cols, const float *a, int lda, float *norms) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, i;
  float sum = 0.0f, v;
  const float *col;
  if (c >= cols) return;
  col = a + (size_t)c * lda;
  for (i = 0; i < rows; i++) {
    v = col[i];
    v *= v;
    sum += v;
  }
  norms[c] = sqrtf(sum);
}

int main(int argc, char **argv) {
  const int rows = 4096, cols = 2048;
  auto a = bench::random_floats((size_t)rows * cols, 161);
  float *da = bench::to_device(a), *dn = bench::device_zeros<float>(cols);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { colnorm_cstyle<<<(cols + 127) / 128, 128>>>(rows, cols, da, rows, dn); });
  std::vector<double> want(cols);
  for (int c = 0; c < cols; ++c) {
    double s = 0;
    for (int i = 0; i < rows; ++i)
      s += (double)a[(size_t)c * rows + i] * a[(size_t)c * rows + i];
    want[c] = std::sqrt(s);
  }
  bool ok = bench::all_close(bench::to_host(dn, cols), want, 1e-4, 1e-5);
  return bench::report("colnorm_cstyle", ok, ms, 2.0 * rows * cols, 4.0 * rows * cols);
}
