// A thread-per-row kernel launched in every form kbcc knows, and in forms it
// leaves alone (before the definition, through a function pointer, in a macro).
#include <cstdio>

__global__ void rows(int n, const float *x, float *y);

void early(int n, const float *x, float *y) { rows<<<(n + 127) / 128, 128>>>(n, x, y); }

__global__ void rows(int n, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) y[r] = 2.0f * x[r];
}

#define LAUNCH_ROWS(n, x, y) rows<<<1, 32>>>(n, x, y)

void all_forms(int n, const float *x, float *y, cudaStream_t s) {
  rows<<<(n + 127) / 128, 128, 0, s>>>(n, x, y);
  void *args[] = {&n, &x, &y};
  cudaLaunchKernel((const void *)rows, dim3((n + 127) / 128), dim3(128), args, 0, s);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((n + 127) / 128);
  cfg.blockDim = dim3(128);
  cfg.stream = s;
  cudaLaunchKernelEx(&cfg, rows, n, x, y);
  void (*fp)(int, const float *, float *) = rows;
  fp<<<1, 32>>>(n, x, y);
  LAUNCH_ROWS(n, x, y);
#warning kbcc-line-check
}
