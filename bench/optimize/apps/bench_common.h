// Shared helpers of the optimization-benchmark apps: each app runs one naive
// kernel on fixed pseudo-random inputs, checks the result against a CPU
// reference, times the kernel (median of --reps runs, L2 flushed before each)
// and prints one line that bench/optimize/run.sh parses:
//   RESULT kernel=<name> ok=<0|1> ms=<median> flops=<n> bytes=<n>
// flops and bytes are the kernel's necessary work and DRAM traffic, used for
// the roofline fraction. Exit status 0 when the result is correct.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <functional>
#include <vector>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                      \
      std::exit(2);                                                                                                    \
    }                                                                                                                  \
  } while (0)

namespace bench {

// --reps N from the command line (default 20, at least 1).
inline int reps_from_args(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--reps")) return std::max(1, std::atoi(argv[i + 1]));
  return 20;
}

// Deterministic values in [lo, hi).
inline std::vector<float> random_floats(size_t n, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> v(n);
  for (auto &x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = lo + (hi - lo) * (static_cast<float>(seed >> 8) / 16777216.0f);
  }
  return v;
}

// Deterministic integers in [0, bound).
inline std::vector<int> random_ints(size_t n, unsigned seed, int bound) {
  std::vector<int> v(n);
  for (auto &x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<int>((seed >> 8) % static_cast<unsigned>(bound));
  }
  return v;
}

template <typename T> T *to_device(const std::vector<T> &h) {
  T *d = nullptr;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <typename T> T *device_zeros(size_t n) {
  T *d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(T)));
  CHECK(cudaMemset(d, 0, n * sizeof(T)));
  return d;
}

template <typename T> std::vector<T> to_host(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// Median milliseconds of `reps` runs of `launch`; before each run `reset`
// restores the inputs and a 256 MiB scratch write evicts the L2 cache.
inline float time_ms(int reps, const std::function<void()> &reset, const std::function<void()> &launch) {
  static char *scratch = nullptr;
  const size_t scratch_bytes = size_t(256) << 20;
  if (!scratch) CHECK(cudaMalloc(&scratch, scratch_bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int r = 0; r < reps; ++r) {
    reset();
    CHECK(cudaMemset(scratch, r & 0xff, scratch_bytes));
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    CHECK(cudaGetLastError());
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// |got - want| <= abs_tol + rel_tol * |want| for every element; prints the
// first mismatch.
inline bool all_close(const std::vector<float> &got, const std::vector<double> &want, double rel_tol, double abs_tol) {
  for (size_t i = 0; i < want.size(); ++i) {
    double g = got[i], w = want[i];
    if (!(std::fabs(g - w) <= abs_tol + rel_tol * std::fabs(w))) {
      std::fprintf(stderr, "mismatch at %zu: got %.8g, want %.8g\n", i, g, w);
      return false;
    }
  }
  return true;
}

// The row-major M x N product of row-major a (M x K) and b (K x N), in double.
inline std::vector<double> matmul_reference(const std::vector<float> &a, const std::vector<float> &b, int M, int K,
                                            int N) {
  std::vector<double> want((size_t)M * N);
  for (int r = 0; r < M; ++r) {
    std::vector<double> acc(N, 0.0);
    for (int e = 0; e < K; ++e)
      for (int c = 0; c < N; ++c)
        acc[c] += (double)a[(size_t)r * K + e] * b[(size_t)e * N + c];
    for (int c = 0; c < N; ++c)
      want[(size_t)r * N + c] = acc[c];
  }
  return want;
}

// The transpose (cols x rows) of row-major x (rows x cols).
inline std::vector<double> transpose_reference(const std::vector<float> &x, int rows, int cols) {
  std::vector<double> want((size_t)rows * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      want[(size_t)c * rows + r] = x[(size_t)r * cols + c];
  return want;
}

// Prints the RESULT line and returns the exit status.
inline int report(const char *kernel, bool ok, float ms, double flops, double bytes) {
  std::printf("RESULT kernel=%s ok=%d ms=%.6f flops=%.0f bytes=%.0f\n", kernel, ok ? 1 : 0, ms, flops, bytes);
  return ok ? 0 : 1;
}

} // namespace bench
