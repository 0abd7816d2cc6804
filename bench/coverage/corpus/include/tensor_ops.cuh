// Header-only templates: device functors and helpers that kernels in the
// units instantiate, and one kernel template defined in the header itself
// (kbcc reports that one as kernel-in-header: a variant cannot be spliced into
// a header shared by other units).
#pragma once
#include <cuda_runtime.h>
#include <type_traits>

namespace tensor {

template <typename T> struct Relu {
  __device__ T operator()(T x) const { return x > T(0) ? x : T(0); }
};

template <typename T> struct Scale {
  T s;
  __device__ T operator()(T x) const { return s * x; }
};

template <typename T, int N> struct alignas(sizeof(T) * N) Packed {
  T v[N];
};

template <typename T> __device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <typename T, typename Op>
__global__ void map_in_header(const T *in, T *out, Op op, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(in[i]);
}

} // namespace tensor
