// A user header with a device helper and a kernel of its own.
#pragma once

#define KBCC_SCALE 2.0f

struct Pair {
  float a;
  int b;
};

__device__ inline float twice(float x) { return x * KBCC_SCALE; }

__global__ void header_kernel(Pair *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].a = twice(p[i].a);
}
