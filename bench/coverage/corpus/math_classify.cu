// Floating-point classification and math in device code as numerical code
// writes it: isfinite/isnan/isinf unqualified, std::, on long double (which
// nvcc treats as double in device code), inside templates; fast intrinsics.
#include <cfloat>
#include <cmath>

template <typename T> __device__ bool usable(T x) { return isfinite(x) && !isnan(x); }

__global__ void sanitize(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (isinf(v[i]) || isnan(v[i]))) v[i] = 0.f;
}

__global__ void count_finite(const double *v, unsigned *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && std::isfinite(v[i])) atomicAdd(count, 1u);
}

__global__ void widen_check(const long double *v, int *ok, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ok[i] = isfinite(v[i]) && !isinf(v[i]) && !signbit(v[i]);
}

template <typename T> __global__ void safe_log(const T *in, T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = usable(in[i]) && in[i] > T(0) ? log(in[i]) : T(-1);
}

__global__ void fast_softplus(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 20.f ? x[i] : __logf(1.f + __expf(x[i]));
}

void run_math(const float *f, float *g, const double *d, double *e, int n) {
  safe_log<<<(n + 255) / 256, 256>>>(f, g, n);
  safe_log<<<(n + 255) / 256, 256>>>(d, e, n);
}
