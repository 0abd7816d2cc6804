// Input of cubin_test: kernels with and without module globals.
__constant__ float coeffs[16];
__device__ int launches;

struct Pair {
  const float *in;
  float *out;
  int n;
};

__device__ __noinline__ float twice(float x) { return 2 * x; }

__global__ void uses_globals(float *out) {
  out[threadIdx.x] = coeffs[threadIdx.x % 16];
  atomicAdd(&launches, 1);
}

template <class T> __global__ void scale(Pair p, T s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) p.out[i] = twice(p.in[i]) * s;
}
template __global__ void scale<float>(Pair, float);
