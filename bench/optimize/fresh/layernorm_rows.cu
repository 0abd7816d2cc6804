// Layer normalisation, one block per row: the threads stride the row, and a
// shared-memory tree (dynamic shared memory) gives the mean, then the
// variance.
#include "bench_common.h"

__global__ void layernorm_rows(const float *x, float *y, const float *g, const float *b, int cols, float eps) {
  extern __shared__ float red[];
  int row = blockIdx.x;
  const float *xr = x + (size_t)row * cols;
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    s += xr[c];
  red[threadIdx.x] = s;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o /= 2) {
    if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
    __syncthreads();
  }
  float mean = red[0] / cols;
  __syncthreads();
  float v = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    float d = xr[c] - mean;
    v += d * d;
  }
  red[threadIdx.x] = v;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o /= 2) {
    if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
    __syncthreads();
  }
  float inv = rsqrtf(red[0] / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[(size_t)row * cols + c] = (xr[c] - mean) * inv * g[c] + b[c];
}

int main(int argc, char **argv) {
  const int rows = 16384, cols = 1024, threads = 256;
  const float eps = 1e-5f;
  auto x = bench::random_floats((size_t)rows * cols, 371), g = bench::random_floats(cols, 372, 0.5f, 1.5f),
       b = bench::random_floats(cols, 373);
  float *dx = bench::to_device(x), *dg = bench::to_device(g), *db = bench::to_device(b);
  float *dy = bench::device_zeros<float>((size_t)rows * cols);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {},
      [&] { layernorm_rows<<<rows, threads, threads * sizeof(float)>>>(dx, dy, dg, db, cols, eps); });
  std::vector<double> want((size_t)rows * cols);
  for (int r = 0; r < rows; ++r) {
    const float *xr = &x[(size_t)r * cols];
    double mean = 0, var = 0;
    for (int c = 0; c < cols; ++c)
      mean += xr[c];
    mean /= cols;
    for (int c = 0; c < cols; ++c)
      var += (xr[c] - mean) * (xr[c] - mean);
    double inv = 1.0 / std::sqrt(var / cols + eps);
    for (int c = 0; c < cols; ++c)
      want[(size_t)r * cols + c] = (xr[c] - mean) * inv * g[c] + b[c];
  }
  bool ok = bench::all_close(bench::to_host(dy, want.size()), want, 1e-3, 1e-4);
  return bench::report("layernorm_rows", ok, ms, 8.0 * rows * cols, 8.0 * rows * cols);
}
