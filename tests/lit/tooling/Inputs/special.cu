// Kernels kbcc extracts but must not replace.
#define DEFINE_KERNEL(name) \
  __global__ void name(int *p) { p[0] = __LINE__; }

DEFINE_KERNEL(from_macro)

namespace {
__global__ void hidden(int *p) { p[0] = 7; }
}  // namespace

__global__ void arch_dependent(int *p) {
#if __CUDA_ARCH__ >= 1000
  p[0] = 100;
#else
  p[0] = 1;
#endif
}

void launch(int *p) {
  from_macro<<<1, 1>>>(p);
  hidden<<<1, 1>>>(p);
  arch_dependent<<<1, 1>>>(p);
}
