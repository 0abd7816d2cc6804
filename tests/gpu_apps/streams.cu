// Test app: two host threads, each launching on two streams of its own.
#include "common.h"

#include <thread>
#include <vector>

__global__ void add_scaled(float *y, const float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += s * x[i];
}

int worker(int id) {
  const int n = 1 << 18;
  std::vector<float> h(n);
  fill(h.data(), n, 100 + id);
  cudaStream_t st[2];
  float *x[2], *y[2];
  for (int s = 0; s < 2; ++s) {
    CHECK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
    CHECK(cudaMalloc(&x[s], n * sizeof(float)));
    CHECK(cudaMalloc(&y[s], n * sizeof(float)));
    CHECK(cudaMemcpyAsync(x[s], h.data(), n * sizeof(float), cudaMemcpyHostToDevice, st[s]));
    CHECK(cudaMemsetAsync(y[s], 0, n * sizeof(float), st[s]));
  }
  for (int k = 0; k < 3; ++k)
    for (int s = 0; s < 2; ++s) add_scaled<<<n / 256, 256, 0, st[s]>>>(y[s], x[s], float(id + s + k), n);
  for (int s = 0; s < 2; ++s) CHECK(cudaStreamSynchronize(st[s]));
  std::vector<float> r(n);
  CHECK(cudaMemcpy(r.data(), y[1], n * sizeof(float), cudaMemcpyDeviceToHost));
  float want = float(id + 1) + float(id + 2) + float(id + 3);
  return r[5] == want * h[5] ? 0 : 1;
}

int main() {
  int bad[2] = {0, 0};
  std::thread a([&] { bad[0] = worker(0); }), b([&] { bad[1] = worker(1); });
  a.join();
  b.join();
  std::printf("streams: %s\n", bad[0] || bad[1] ? "wrong" : "ok");
  return bad[0] || bad[1];
}
