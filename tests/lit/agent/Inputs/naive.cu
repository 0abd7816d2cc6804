// A naive kernel with every shape the mechanical transforms look for: const
// input pointers, an output pointer, an innermost loop and math calls.
#include <cuda_runtime.h>

__device__ float square(float v) { return v * v; }

__global__ void softplus_rows(int rows, int cols, const float *in, const float *bias, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c) {
    float v = in[r * cols + c] + bias[c];
    acc += logf(1.0f + expf(v)) + square(sinf(v));  // "expf(" in a string-free comment
  }
  out[r] = acc;
}

void launch(int rows, int cols, const float *in, const float *bias, float *out) {
  softplus_rows<<<(rows + 255) / 256, 256>>>(rows, cols, in, bias, out);
}
