// The example application: runs each kernel, checks its result against the
// CPU, and prints the kernel time (median of several runs, CUDA events).
//   usage: app [--reps N]     exit status 0 when every result is correct
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace {

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    cudaError_t e_ = (call);                                                                                           \
    if (e_ != cudaSuccess) {                                                                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                      \
      std::exit(2);                                                                                                    \
    }                                                                                                                  \
  } while (0)

// Median time in milliseconds of `reps` runs of `body` (after `reset`).
float time_ms(int reps, const std::function<void()> &reset, const std::function<void()> &body) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int r = 0; r < reps; ++r) {
    reset();
    CHECK(cudaEventRecord(start));
    body();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

float *to_device(const std::vector<float> &h) {
  float *d = nullptr;
  CHECK(cudaMalloc(&d, h.size() * sizeof(float)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

std::vector<float> to_host(const float *d, size_t n) {
  std::vector<float> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

std::vector<float> random_vector(size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (auto &x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / 16777216.0f - 0.5f;
  }
  return v;
}

bool close(float got, double want, double rel) { return std::fabs(got - want) <= rel * (1.0 + std::fabs(want)); }

bool run_saxpy(int reps, float &ms) {
  const int n = 1 << 22;
  auto x = random_vector(n, 1), y = random_vector(n, 2);
  float *dx = to_device(x), *dy = to_device(y);
  ms = time_ms(
      reps, [&] { CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice)); },
      [&] { launch_saxpy(n, 2.5f, dx, dy, 0); });
  auto got = to_host(dy, n);
  bool ok = true;
  for (int i = 0; i < n && ok; ++i)
    ok = close(got[i], 2.5 * x[i] + y[i], 1e-5);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  return ok;
}

bool run_reduce(int reps, float &ms) {
  const int n = 1 << 22;
  auto x = random_vector(n, 3);
  float *dx = to_device(x), *dout = nullptr;
  CHECK(cudaMalloc(&dout, sizeof(float)));
  ms = time_ms(reps, [&] { CHECK(cudaMemset(dout, 0, sizeof(float))); }, [&] { launch_reduce_sum(n, dx, dout, 0); });
  double want = 0, magnitude = 0;
  for (float v : x) {
    want += v;
    magnitude += std::fabs(v);
  }
  auto got = to_host(dout, 1);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dout));
  return std::fabs(got[0] - want) <= 1e-6 * magnitude + 1e-3;
}

bool run_matmul(int reps, float &ms) {
  const int n = 512;
  auto a = random_vector(n * n, 4), b = random_vector(n * n, 5);
  float *da = to_device(a), *db = to_device(b), *dc = nullptr;
  CHECK(cudaMalloc(&dc, n * n * sizeof(float)));
  ms = time_ms(reps, [] {}, [&] { launch_matmul(n, da, db, dc, 0); });
  auto c = to_host(dc, n * n);
  bool ok = true;
  for (int i = 0; i < n && ok; i += 37)
    for (int j = 0; j < n && ok; j += 41) {
      double want = 0;
      for (int k = 0; k < n; ++k)
        want += double(a[i * n + k]) * b[k * n + j];
      ok = close(c[i * n + j], want, 1e-4);
    }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  int reps = 20;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--reps")) reps = std::max(1, std::atoi(argv[i + 1]));
  struct Case {
    const char *name;
    bool (*run)(int, float &);
  } cases[] = {{"saxpy", run_saxpy}, {"reduce_sum", run_reduce}, {"matmul", run_matmul}};
  bool all_ok = true;
  float total = 0;
  for (const auto &c : cases) {
    float ms = 0;
    bool ok = c.run(reps, ms);
    all_ok = all_ok && ok;
    total += ms;
    std::printf("%-12s %s  kernel time %.4f ms\n", c.name, ok ? "ok   " : "WRONG", ms);
  }
  std::printf("total kernel time %.4f ms\n", total);
  return all_ok ? 0 : 1;
}
