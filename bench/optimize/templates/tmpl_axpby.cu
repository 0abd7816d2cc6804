// y = a * x + b * y in double precision, from a kernel template over the
// element type, launched with the type deduced from its arguments: one
// thread per element.
#include "bench_common.h"

template <typename T>
__global__ void axpby(int n, T a, const T *x, T b, T *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b * y[i];
}

int main(int argc, char **argv) {
  const int n = 1 << 24;
  auto xf = bench::random_floats(n, 103), yf = bench::random_floats(n, 104);
  std::vector<double> x(xf.begin(), xf.end()), y0(yf.begin(), yf.end());
  double *dx = bench::to_device(x), *dy = bench::to_device(y0);
  const double a = 1.5, b = -0.5;
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [&] { CHECK(cudaMemcpy(dy, y0.data(), n * sizeof(double), cudaMemcpyHostToDevice)); },
      [&] { axpby<<<(n + 255) / 256, 256>>>(n, a, dx, b, dy); });
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i)
    want[i] = a * x[i] + b * y0[i];
  std::vector<double> got = bench::to_host(dy, n);
  bool ok = bench::all_close(std::vector<float>(got.begin(), got.end()), want, 1e-6, 1e-7);
  return bench::report("tmpl_axpby", ok, ms, 3.0 * n, 24.0 * n);
}
