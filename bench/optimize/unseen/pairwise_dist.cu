// Naive pairwise Euclidean distances between the rows of two matrices: one
// thread per output, the feature loop read from global memory.
#include "bench_common.h"

__global__ void pairwise_dist(int m, int n, int d, const float *a, const float *b, float *out) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m && j < n) {
    float s = 0.0f;
    for (int f = 0; f < d; ++f) {
      float diff = a[i * d + f] - b[j * d + f];
      s += diff * diff;
    }
    out[i * n + j] = sqrtf(s);
  }
}

int main(int argc, char **argv) {
  const int m = 2048, n = 2048, d = 64;
  auto a = bench::random_floats((size_t)m * d, 64), b = bench::random_floats((size_t)n * d, 65);
  float *da = bench::to_device(a), *db = bench::to_device(b), *dout = bench::device_zeros<float>((size_t)m * n);
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), [] {},
                            [&] { pairwise_dist<<<grid, block>>>(m, n, d, da, db, dout); });
  std::vector<double> want((size_t)m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int f = 0; f < d; ++f) {
        double diff = (double)a[(size_t)i * d + f] - b[(size_t)j * d + f];
        s += diff * diff;
      }
      want[(size_t)i * n + j] = std::sqrt(s);
    }
  bool ok = bench::all_close(bench::to_host(dout, (size_t)m * n), want, 1e-4, 1e-4);
  return bench::report("pairwise_dist", ok, ms, 3.0 * m * n * d, 4.0 * m * n + 4.0 * (m + n) * d);
}
