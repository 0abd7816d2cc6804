// A thread-per-row kernel launched through the forms kbcc routes through a
// launch adapter: plainly, inside a CUDA graph capture, from two host threads
// on two streams, and with a misaligned input (a launch-changing variant's
// precondition fails there, so the original must run). Each case is checked
// against a CPU reference: "<case> ok" or "<case> WRONG".
#include "common.h"

#include <cmath>
#include <thread>
#include <vector>

__global__ void row_sum(int rows, int cols, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c)
    s += x[(size_t)r * cols + c];
  y[r] = s;
}

namespace {

const int kRows = 2048, kCols = 512;

bool matches(const std::vector<float> &x, int offset, int rows, const float *dy) {
  std::vector<float> y(rows);
  CHECK(cudaMemcpy(y.data(), dy, rows * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r = 0; r < rows; ++r) {
    double want = 0, mag = 0;
    for (int c = 0; c < kCols; ++c) {
      want += x[offset + (size_t)r * kCols + c];
      mag += std::fabs(x[offset + (size_t)r * kCols + c]);
    }
    if (std::fabs(y[r] - want) > 1e-5 * mag + 1e-6) return false;
  }
  return true;
}

void report(const char *what, bool ok) { std::printf("%s %s\n", what, ok ? "ok" : "WRONG"); }

} // namespace

int main() {
  std::vector<float> x((size_t)kRows * kCols + 4);
  fill(x.data(), static_cast<int>(x.size()), 7);
  float *dx = nullptr, *dy = nullptr, *dy2 = nullptr;
  CHECK(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK(cudaMalloc(&dy, kRows * sizeof(float)));
  CHECK(cudaMalloc(&dy2, kRows * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  int grid = (kRows + 127) / 128;

  row_sum<<<grid, 128>>>(kRows, kCols, dx, dy);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  report("plain", matches(x, 0, kRows, dy));

  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CHECK(cudaMemset(dy, 0, kRows * sizeof(float)));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  row_sum<<<grid, 128, 0, s>>>(kRows, kCols, dx, dy);
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  CHECK(cudaGraphLaunch(ge, s));
  CHECK(cudaStreamSynchronize(s));
  report("graph", matches(x, 0, kRows, dy));

  bool ok[2] = {false, false};
  float *outs[2] = {dy, dy2};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      cudaStream_t st;
      CHECK(cudaStreamCreate(&st));
      CHECK(cudaMemsetAsync(outs[t], 0, kRows * sizeof(float), st));
      for (int rep = 0; rep < 50; ++rep)
        row_sum<<<grid, 128, 0, st>>>(kRows, kCols, dx, outs[t]);
      CHECK(cudaGetLastError());
      CHECK(cudaStreamSynchronize(st));
      ok[t] = matches(x, 0, kRows, outs[t]);
      CHECK(cudaStreamDestroy(st));
    });
  for (auto &t : threads)
    t.join();
  report("threads", ok[0] && ok[1]);

  row_sum<<<grid, 128>>>(kRows - 1, kCols, dx + 1, dy);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  report("misaligned", matches(x, 1, kRows - 1, dy));
  return 0;
}
