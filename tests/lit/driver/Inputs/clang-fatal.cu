// nvcc compiles this unit; kbcc's clang parse stops at a missing include.
#ifdef __clang__
#include "only-clang-looks-for-this.h"
#endif

__global__ void fill(int *p) { p[threadIdx.x] = 1; }
