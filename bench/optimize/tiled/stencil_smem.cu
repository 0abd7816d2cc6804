// A 1-D stencil of radius 8 whose block stages its window in shared memory:
// each thread loads its element, the first RADIUS threads the halo on both
// sides, then every thread sums 17 neighbours from the window.
#include "bench_common.h"

#define RADIUS 8
#define BLOCK 256

__global__ void stencil_smem(const float *in, float *out, int n) {
  __shared__ float window[BLOCK + 2 * RADIUS];
  int g = blockIdx.x * BLOCK + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  window[l] = g < n ? in[g] : 0.0f;
  if (threadIdx.x < RADIUS) {
    window[l - RADIUS] = g >= RADIUS && g - RADIUS < n ? in[g - RADIUS] : 0.0f;
    window[l + BLOCK] = g + BLOCK < n ? in[g + BLOCK] : 0.0f;
  }
  __syncthreads();
  float sum = 0.0f;
  for (int o = -RADIUS; o <= RADIUS; ++o)
    sum += window[l + o];
  if (g < n) out[g] = sum;
}

int main(int argc, char **argv) {
  const int n = 1 << 24;
  auto in = bench::random_floats(n, 341);
  float *din = bench::to_device(in), *dout = bench::device_zeros<float>(n);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { stencil_smem<<<n / BLOCK, BLOCK>>>(din, dout, n); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) {
    float s = 0.0f; // the kernel's order: o from -RADIUS up
    for (int o = -RADIUS; o <= RADIUS; ++o)
      s += i + o >= 0 && i + o < n ? in[i + o] : 0.0f;
    want[i] = s;
  }
  bool ok = bench::all_close(bench::to_host(dout, n), want, 0, 0);
  return bench::report("stencil_smem", ok, ms, 2.0 * (2 * RADIUS + 1) * n, 8.0 * n);
}
