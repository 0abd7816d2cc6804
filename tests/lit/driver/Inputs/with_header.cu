#include "local.h"
__global__ void add(float *x) { x[threadIdx.x] += LOCAL_VALUE; }
