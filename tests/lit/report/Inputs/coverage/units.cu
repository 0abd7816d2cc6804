// Input of bench-coverage.test: one kernel of each outcome the benchmark knows.
#include "local.cuh"

#ifndef SCALE
#error "the build defines SCALE (compile_commands.json)"
#endif

__global__ void __launch_bounds__(128) plain_kernel(float *p) { p[threadIdx.x] *= SCALE; }

#define MAKE(name) \
  __global__ void name(float *p) { p[threadIdx.x] += 1.f; }
MAKE(from_macro)

template <typename T> __global__ void never_instantiated(T *p) { p[0] = T(); }

template <typename T> __global__ void instantiated(T *p) { p[threadIdx.x] = T(1); }
template __global__ void instantiated<int>(int *);

namespace {
__global__ void hidden(int *p) { p[0] = 0; }
} // namespace
void launch_hidden(int *p) { hidden<<<1, 1>>>(p); }

#if 0
__global__ void disabled(float *p) {}
#endif
// __global__ void commented_out(float *p) {}
