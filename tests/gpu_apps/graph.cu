// Test app: kernels recorded by stream capture into a CUDA graph and launched
// as a graph, plus one plain launch. Capture must leave the graph working.
#include "common.h"

#include <vector>

__global__ void inc(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.0f;
}

int main() {
  const int n = 1 << 16;
  float *y;
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMemset(y, 0, n * sizeof(float)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  inc<<<n / 256, 256, 0, s>>>(y, n);  // plain launch: captured
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int k = 0; k < 3; ++k) inc<<<n / 256, 256, 0, s>>>(y, n);  // recorded into the graph: skipped
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  for (int r = 0; r < 2; ++r) CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<float> h(n);
  CHECK(cudaMemcpy(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  bool ok = h[0] == 7.0f && h[n - 1] == 7.0f;
  std::printf("graph: %s (%g)\n", ok ? "ok" : "wrong", h[0]);
  return ok ? 0 : 1;
}
