// A kernel template with two instances: one launched in every form kbcc
// rewrites, and from a host template, whose site launches whichever
// instance each of its instantiations names.
#include <cstdio>

namespace ops {
template <typename T, int S = 2>
__global__ void trows(int n, const T *x, T *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) y[r] = T(S) * x[r];
}
} // namespace ops

template <class T> void launch_any(int n, const T *x, T *y) { ops::trows<T><<<(n + 127) / 128, 128>>>(n, x, y); }

void all_forms(int n, const float *x, float *y, const double *xd, double *yd, cudaStream_t s) {
  ops::trows<float><<<(n + 127) / 128, 128, 0, s>>>(n, x, y);
  ops::trows<<<(n + 127) / 128, 128, 0, s>>>(n, xd, yd);
  void *args[] = {&n, &x, &y};
  cudaLaunchKernel((const void *)ops::trows<float, 2>, dim3((n + 127) / 128), dim3(128), args, 0, s);
  launch_any(n, x, y);
  launch_any(n, xd, yd);
}
