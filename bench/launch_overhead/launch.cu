// Launch-rate probe: a loop of launches of an (almost) empty kernel, timed on
// the host. Built plainly with nvcc, and with kbcc when a launch-changing
// variant routes the launch through a host adapter; the difference per launch
// is the adapter's cost. Prints: LAUNCH ns_per_launch=<median of 7 runs>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void tiny(int n, float *p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 1.0f;
}

int main() {
  float *p = nullptr;
  if (cudaMalloc(&p, 1024 * sizeof(float)) != cudaSuccess) return 1;
  const int launches = 20000;
  std::vector<double> runs;
  for (int r = 0; r < 8; ++r) {
    cudaDeviceSynchronize();
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i)
      tiny<<<1, 256>>>(256, p);
    auto end = std::chrono::steady_clock::now();
    cudaDeviceSynchronize();
    if (r > 0) runs.push_back(std::chrono::duration<double, std::nano>(end - start).count() / launches);
  }
  std::sort(runs.begin(), runs.end());
  std::printf("LAUNCH ns_per_launch=%.1f spread=%.1f err=%s\n", runs[runs.size() / 2], (runs.back() - runs.front()) / 2,
              cudaGetErrorString(cudaGetLastError()));
  return 0;
}
