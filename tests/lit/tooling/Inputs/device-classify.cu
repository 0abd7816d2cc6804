// Floating-point classification in device code as nvcc accepts it.
#include <cmath>

template <typename T> __device__ bool usable(T x) { return isfinite(x) && !isnan(x) && !isinf(x); }

__global__ void classify_float(const float *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = isfinite(v[i]) + 2 * isnan(v[i]) + 4 * isinf(v[i]) + 8 * std::isfinite(v[i]);
}

__global__ void classify_double(const double *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = usable(v[i]) + 2 * usable(static_cast<float>(v[i]));
}

// nvcc treats long double as double in device code (with a warning).
__global__ void classify_long_double(const long double *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = isfinite(v[i]) + 2 * isnan(v[i]) + 4 * isinf(v[i]) + 8 * signbit(v[i]);
}
