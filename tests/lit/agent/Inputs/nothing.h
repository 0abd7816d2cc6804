// A kernel defined in a header (kbcc does not optimize those).
__global__ void header_kernel(float *p) { p[threadIdx.x] += 1.f; }
