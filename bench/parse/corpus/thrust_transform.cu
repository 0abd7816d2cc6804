// Thrust with device lambdas and a user functor.
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>

struct saxpy_op {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

__global__ void touch(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1.0f;
}

float run(int n) {
  thrust::device_vector<float> x(n, 1.0f), y(n, 2.0f);
  thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy_op{2.0f});
  touch<<<(n + 127) / 128, 128>>>(thrust::raw_pointer_cast(y.data()), n);
  return thrust::reduce(y.begin(), y.end());
}
