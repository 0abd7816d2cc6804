// Naive sum reduction: interleaved shared-memory tree with divergent
// branches (modulo test), one atomicAdd per block.
#include "bench_common.h"

__global__ void reduce_sum(int n, const float *x, float *out) {
  extern __shared__ float buf[];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  buf[t] = i < (unsigned)n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (t % (2 * s) == 0) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, buf[0]);
}

int main(int argc, char **argv) {
  const int n = 1 << 24, block = 256;
  auto x = bench::random_floats(n, 3);
  float *dx = bench::to_device(x), *dout = bench::device_zeros<float>(1);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [&] { CHECK(cudaMemset(dout, 0, sizeof(float))); },
      [&] { reduce_sum<<<(n + block - 1) / block, block, block * sizeof(float)>>>(n, dx, dout); });
  double want = 0, magnitude = 0;
  for (float v : x)
    want += v, magnitude += std::fabs(v);
  float got = bench::to_host(dout, 1)[0];
  bool ok = std::fabs(got - want) <= 1e-6 * magnitude + 1e-3;
  if (!ok) std::fprintf(stderr, "sum: got %.6f, want %.6f\n", got, want);
  return bench::report("reduction", ok, ms, 1.0 * n, 4.0 * n);
}
