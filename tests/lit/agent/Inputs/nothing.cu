// Kernels in every state `kbcc optimize` can find a kernel in.
#include "nothing.h"

__global__ void never_captured(float *p) { p[threadIdx.x] *= 2.f; }
__global__ void captured_elsewhere(float *p) { p[threadIdx.x] *= 3.f; }
__global__ void not_replayable(float *p) { p[threadIdx.x] *= 4.f; }
__global__ void too_big(float *p) { p[threadIdx.x] *= 5.f; }
