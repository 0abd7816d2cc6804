// Naive block-wise inclusive scan: Hillis-Steele in shared memory with a
// barrier per step, 1024 elements per block (each block scans its segment).
#include "bench_common.h"

__global__ void scan_blocks(int n, const float *x, float *y) {
  __shared__ float buf[1024];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off *= 2) {
    float v = t >= off ? buf[t - off] : 0.0f;
    __syncthreads();
    buf[t] += v;
    __syncthreads();
  }
  if (i < n) y[i] = buf[t];
}

int main(int argc, char **argv) {
  const int n = 1 << 22, block = 1024;
  auto x = bench::random_floats(n, 13);
  float *dx = bench::to_device(x), *dy = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { scan_blocks<<<(n + block - 1) / block, block>>>(n, dx, dy); });
  std::vector<double> want(n);
  for (int b = 0; b < n; b += block) {
    double s = 0;
    for (int i = b; i < std::min(n, b + block); ++i)
      want[i] = s += x[i];
  }
  bool ok = bench::all_close(bench::to_host(dy, n), want, 1e-4, 1e-4);
  return bench::report("scan", ok, ms, 1.0 * n, 8.0 * n);
}
