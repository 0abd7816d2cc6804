// A grid-stride SAXPY: its items are independent, so it may run one item per
// thread; zero elements of x are skipped with `continue`.
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  for (int i = index; i < n; i += stride) {
    if (x[i] == 0.0f) continue;
    y[i] = a * x[i] + y[i];
  }
}

// The same loop carrying a running sum from one item to the next: its items
// are not independent.
__global__ void running(int n, const float *x, float *y) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    s += x[i];
    y[i] = s;
  }
}

// Caffe's loop macro: the header comes from the macro, the body is written out.
#define CUDA_KERNEL_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__global__ void leaky_relu(const int count, const float *in, float *out, float slope) {
  CUDA_KERNEL_LOOP(index, count) {
    out[index] = in[index] > 0 ? in[index] : in[index] * slope;
  }
}

// A flattened 2-D grid (a 1-D index over a grid made 2-D to hold more blocks).
__global__ void flat(int n, const float *x, float *y) {
  int i = (blockIdx.x + blockIdx.y * gridDim.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}
