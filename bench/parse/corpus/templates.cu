// Templates: kernel templates, traits, functors, instantiations of several types.
#include <cuda_runtime.h>
#include <type_traits>

template <typename T> struct Accum { using type = T; };
template <> struct Accum<float> { using type = double; };

template <typename T> __device__ T square(T x) { return x * x; }

template <typename T, int UNROLL>
__global__ void sum_squares(const T *in, typename Accum<T>::type *out, int n) {
  typename Accum<T>::type acc = 0;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL + u;
    if (i < n) acc += square(in[i]);
  }
  atomicAdd(out, acc);
}

template <typename F>
__global__ void apply(float *p, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = f(p[i]);
}

struct Halve {
  __device__ float operator()(float x) const { return x / 2; }
};

void launch(const float *f, const double *d, const int *i, double *od, int *oi, float *p, int n) {
  sum_squares<float, 4><<<1, 128>>>(f, od, n);
  sum_squares<double, 2><<<1, 128>>>(d, od, n);
  sum_squares<int, 1><<<1, 128>>>(i, oi, n);
  apply<<<1, 128>>>(p, n, Halve{});
}
