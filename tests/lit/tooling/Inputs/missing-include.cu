#include "does-not-exist.h"
__global__ void k(int *p) { p[0] = 1; }
