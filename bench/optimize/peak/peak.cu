// Measures the two roofline ceilings of the GPU it runs on:
//   copy bandwidth: a grid-stride float4 copy of 1 GiB (bytes read + written),
//   FMA rate: independent fused multiply-adds on registers (2 flops each).
// Prints: PEAK gpu=<name> copy_gbps=<GB/s> fma_gflops=<GFLOP/s>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                      \
      std::exit(2);                                                                                                    \
    }                                                                                                                  \
  } while (0)

__global__ void copy_kernel(size_t n4, const float4 *__restrict__ in, float4 *__restrict__ out) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}

constexpr int kChains = 8;
constexpr int kIters = 4096;

__global__ void fma_kernel(float seed, float *out) {
  float v[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c)
    v[c] = seed + threadIdx.x + c;
  for (int it = 0; it < kIters; ++it) {
#pragma unroll
    for (int c = 0; c < kChains; ++c)
      v[c] = fmaf(v[c], 0.999999f, 1e-7f);
  }
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < kChains; ++c)
    s += v[c];
  if (s == 12345.678f) out[0] = s; // keeps the work observable, practically never true
}

template <typename F> float best_ms(int reps, F launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  float best = 1e30f;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    best = std::min(best, ms);
  }
  return best;
}

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount;

  const size_t bytes = size_t(1) << 30, n4 = bytes / sizeof(float4);
  float4 *in = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMemset(in, 1, bytes));
  float copy_ms = best_ms(10, [&] { copy_kernel<<<sms * 8, 512>>>(n4, in, out); });
  double copy_gbps = 2.0 * bytes / (copy_ms * 1e-3) / 1e9;

  float *sink = nullptr;
  CHECK(cudaMalloc(&sink, sizeof(float)));
  const int blocks = sms * 16, threads = 256;
  float fma_ms = best_ms(10, [&] { fma_kernel<<<blocks, threads>>>(1.0f, sink); });
  double flops = 2.0 * kChains * kIters * double(blocks) * threads;
  double fma_gflops = flops / (fma_ms * 1e-3) / 1e9;

  std::printf("PEAK gpu=\"%s\" copy_gbps=%.1f fma_gflops=%.1f\n", prop.name, copy_gbps, fma_gflops);
  return 0;
}
