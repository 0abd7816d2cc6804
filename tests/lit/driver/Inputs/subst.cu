#include "local.h"
__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }
__global__ void add(float *x) { x[threadIdx.x] += LOCAL_VALUE; }
