// Kernel templates and their instances, as the transforms read them: each
// instance becomes an explicit specialization after its template, unless
// the program specializes it itself; a static template's specialization
// has its linkage without saying so. Some templates cannot be written out
// that way (a pack, a template template parameter, a pointer argument, a
// template made static by a macro, a parameter read in a macro).
#include <cstdio>

namespace ops {
template <typename T, int N = 4>
__global__ void tscale(const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * T(N);
}

// An instance the program specializes itself.
template <> __global__ void tscale<double, 4>(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 4.0;
}

template <typename T>
__global__ void trowsum(const T *x, T *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  T s = 0;
  for (int c = 0; c < cols; ++c)
    s += x[(size_t)r * cols + c];
  out[r] = s;
}
} // namespace ops

template <typename... Ts> __global__ void tpack(int *out, Ts... xs) { out[threadIdx.x] = sizeof...(xs); }

template <class V> struct Box { V v; };
template <template <class> class B> __global__ void tbox(int *out) { out[threadIdx.x] = sizeof(B<int>); }

template <typename T> __global__ void tptr(T x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0;
}

template <typename T> static __global__ void tstatic(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 0;
}

#define PRIVATE_KERNEL static __global__
template <typename T> PRIVATE_KERNEL void tstatic_macro(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 1;
}

#define HALF(v) ((v) / T(2))
template <typename T> __global__ void tmacro(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = HALF(x[i]);
}

void run(const float *xf, float *yf, const unsigned *xu, unsigned *yu, const double *xd, double *yd, int *o, int n) {
  ops::tscale<float><<<(n + 255) / 256, 256>>>(xf, yf, n);
  ops::tscale<<<(n + 255) / 256, 256>>>(xd, yd, n);
  ops::tscale<unsigned, 8><<<(n + 255) / 256, 256>>>(xu, yu, n);
  ops::trowsum<<<(n + 127) / 128, 128>>>(xd, yd, n, n);
  tpack<<<1, 32>>>(o, 1, 2.0f);
  tbox<Box><<<1, 32>>>(o);
  tptr<<<1, 32>>>(yf, n);
  tstatic<<<1, 32>>>(yf, n);
  tstatic_macro<<<1, 32>>>(yf, n);
  tmacro<<<1, 32>>>(yf, n);
}
