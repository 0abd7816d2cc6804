// An Adam optimizer step over a flat parameter vector: a grid-stride loop
// launched, as training code often does, with a fixed grid of 256 blocks of
// 256 threads whatever the vector's length.
#include "bench_common.h"

__global__ void adam(int n, float lr, float b1, float b2, float eps, float c1, float c2, const float *g, float *m,
                     float *v, float *w) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float mi = b1 * m[i] + (1.0f - b1) * g[i];
    float vi = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
    m[i] = mi;
    v[i] = vi;
    w[i] -= lr * (mi / c1) / (sqrtf(vi / c2) + eps);
  }
}

int main(int argc, char **argv) {
  const int n = 1 << 24;
  const float lr = 1e-3f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, c1 = 1.0f - 0.9f, c2 = 1.0f - 0.999f;
  auto g = bench::random_floats(n, 62), m0 = bench::random_floats(n, 63), w0 = bench::random_floats(n, 64);
  auto v0 = bench::random_floats(n, 65, 0.0f, 1.0f);
  float *dg = bench::to_device(g), *dm = bench::to_device(m0), *dv = bench::to_device(v0), *dw = bench::to_device(w0);
  // Every timed run starts from the same state, so the check sees one step.
  auto reset = [&] {
    cudaMemcpy(dm, m0.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dv, v0.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dw, w0.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  };
  float ms = bench::time_ms(bench::reps_from_args(argc, argv), reset,
                            [&] { adam<<<256, 256>>>(n, lr, b1, b2, eps, c1, c2, dg, dm, dv, dw); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) {
    float mi = b1 * m0[i] + (1.0f - b1) * g[i];
    float vi = b2 * v0[i] + (1.0f - b2) * g[i] * g[i];
    want[i] = w0[i] - lr * (mi / c1) / (std::sqrt(vi / c2) + eps);
  }
  bool ok = bench::all_close(bench::to_host(dw, n), want, 1e-5, 1e-6);
  return bench::report("adam", ok, ms, 12.0 * n, 28.0 * n);
}
