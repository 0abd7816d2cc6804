// Thrust algorithms with device lambdas and functors next to hand-written
// kernels that take raw pointers out of thrust vectors.
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

struct saxpy_functor {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

__global__ void clamp_kernel(float *v, float lo, float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = fminf(hi, fmaxf(lo, v[i]));
}

__global__ void histogram_kernel(const int *keys, int *bins, int n, int nbins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[keys[i] % nbins], 1);
}

float run_thrust(int n) {
  thrust::device_vector<float> x(n, 1.f), y(n, 2.f);
  thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy_functor{3.f});
  thrust::transform(x.begin(), x.end(), x.begin(), [] __device__(float v) { return v * v; });
  clamp_kernel<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(y.data()), 0.f, 4.f, n);
  thrust::device_vector<int> keys(n), bins(16);
  thrust::sequence(keys.begin(), keys.end());
  histogram_kernel<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(keys.data()),
                                             thrust::raw_pointer_cast(bins.data()), n, 16);
  thrust::sort(y.begin(), y.end());
  return thrust::reduce(y.begin(), y.end());
}
