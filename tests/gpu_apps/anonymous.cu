// Kernels in anonymous namespaces, as libraries write their private kernels:
// a thread-per-row sum (a launch-changing variant makes it warp-per-row), a
// gain from a `__constant__` table of the same namespace, and a template
// instance in a namespace nested in a named one. Each runs on several sizes
// and is checked against a CPU reference: "<kernel> <size> ok" or "... WRONG".
#include "common.h"

#include <cmath>
#include <vector>

namespace {

__constant__ float kGain[4];

__global__ void row_sums(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c)
    s += x[(size_t)r * cols + c];
  y[r] = s;
}

__global__ void apply_gain(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * kGain[i & 3];
}

void report(const char *kernel, int size, bool ok) { std::printf("%s %d %s\n", kernel, size, ok ? "ok" : "WRONG"); }

} // namespace

namespace lib {
namespace {
template <typename T> __global__ void col_max(int rows, int cols, const T *x, T *out) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  T m = x[c];
  for (int r = 1; r < rows; ++r)
    m = fmaxf(m, x[(size_t)r * cols + c]);
  out[c] = m;
}
} // namespace
} // namespace lib

int main() {
  const int max_rows = 4096, max_cols = 1024;
  std::vector<float> x((size_t)max_rows * max_cols), y(max_rows * (size_t)max_cols);
  fill(x.data(), static_cast<int>(x.size()), 21);
  const float gain[4] = {0.5f, -2.0f, 3.0f, 1.25f};
  CHECK(cudaMemcpyToSymbol(kGain, gain, sizeof gain));
  float *dx = nullptr, *dy = nullptr;
  CHECK(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK(cudaMalloc(&dy, y.size() * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  for (int rows : {max_rows, 1001, 37}) {
    int cols = rows == 37 ? 77 : max_cols;
    row_sums<<<(rows + 127) / 128, 128>>>(rows, cols, dx, dy);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(y.data(), dy, rows * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int r = 0; r < rows; ++r) {
      double want = 0, mag = 0;
      for (int c = 0; c < cols; ++c) {
        want += x[(size_t)r * cols + c];
        mag += std::fabs(x[(size_t)r * cols + c]);
      }
      ok = ok && std::fabs(y[r] - want) <= 1e-5 * mag + 1e-6;
    }
    report("row_sums", rows, ok);
  }
  for (int n : {1 << 22, 1000003, 100}) {
    apply_gain<<<(n + 255) / 256, 256>>>(n, dx, dy);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < n; ++i)
      ok = ok && y[i] == x[i] * gain[i & 3];
    report("apply_gain", n, ok);
  }
  for (int cols : {max_cols, 333}) {
    int rows = 4096;
    lib::col_max<float><<<(cols + 63) / 64, 64>>>(rows, cols, dx, dy);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(y.data(), dy, cols * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int c = 0; c < cols; ++c) {
      float m = x[c];
      for (int r = 1; r < rows; ++r)
        m = std::fmax(m, x[(size_t)r * cols + c]);
      ok = ok && y[c] == m;
    }
    report("col_max", cols, ok);
  }
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  return 0;
}
