// A thread-per-row kernel in an anonymous namespace, launched from outside
// it, as libraries keep their private kernels.
namespace {
__global__ void rows(int n, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n) y[r] = 2.0f * x[r];
}
} // namespace

void run(int n, const float *x, float *y, cudaStream_t s) { rows<<<(n + 127) / 128, 128, 0, s>>>(n, x, y); }
