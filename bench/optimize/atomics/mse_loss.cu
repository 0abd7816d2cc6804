// A mean squared error loss: a grid-stride loop over predictions and targets,
// launched with a fixed grid as training code often is, every element adding
// its share to a double-precision loss with one atomic (a float one would
// lose the small shares once the loss is large).
#include "bench_common.h"

__global__ void mse_loss(int n, const float *pred, const float *target, double *loss) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float d = pred[i] - target[i];
    atomicAdd(loss, (double)(d * d) / n);
  }
}

int main(int argc, char **argv) {
  const int n = 1 << 22;
  auto p = bench::random_floats(n, 73), t = bench::random_floats(n, 74);
  float *dp = bench::to_device(p), *dt = bench::to_device(t);
  double *dl = bench::device_zeros<double>(1);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [&] { cudaMemset(dl, 0, sizeof(double)); },
      [&] { mse_loss<<<256, 256>>>(n, dp, dt, dl); });
  double want = 0;
  for (int i = 0; i < n; ++i) {
    float d = p[i] - t[i];
    want += (double)(d * d) / n;
  }
  double got = bench::to_host(dl, 1)[0];
  bool ok = std::fabs(got - want) <= 1e-9 * want;
  return bench::report("mse_loss", ok, ms, 4.0 * n, 8.0 * n);
}
