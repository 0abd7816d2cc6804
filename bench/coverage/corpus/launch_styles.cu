// The ways real code declares and launches kernels: extern "C", static,
// named namespaces, __launch_bounds__, dynamic shared memory, struct
// parameters, __grid_constant__, <<<>>> on streams, cudaLaunchKernel and
// cudaLaunchKernelEx with attributes.
#include <cuda_runtime.h>

struct Params {
  const float *in;
  float *out;
  int n;
  float scale;
};

extern "C" __global__ void c_linkage_scale(float *v, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= s;
}

static __global__ void file_local_fill(int *v, int x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = x;
}

namespace app::kernels {
__global__ void __launch_bounds__(256, 2) bounded_copy(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
} // namespace app::kernels

__global__ void by_struct(Params p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) p.out[i] = p.scale * p.in[i];
}

__global__ void by_grid_constant(const __grid_constant__ Params p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) p.out[i] = p.in[i] + p.scale;
}

__global__ void shared_reverse(const int *in, int *out, int n) {
  extern __shared__ int buf[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) out[i] = buf[blockDim.x - 1 - threadIdx.x];
}

cudaError_t launch_everything(Params p, int *iv, cudaStream_t s) {
  c_linkage_scale<<<(p.n + 127) / 128, 128, 0, s>>>(p.out, 2.f, p.n);
  file_local_fill<<<(p.n + 127) / 128, 128, 0, s>>>(iv, 7, p.n);
  app::kernels::bounded_copy<<<(p.n + 255) / 256, 256, 0, s>>>(p.in, p.out, p.n);
  shared_reverse<<<(p.n + 127) / 128, 128, 128 * sizeof(int), s>>>(iv, iv, p.n);
  void *args[] = {&p};
  cudaError_t e = cudaLaunchKernel((const void *)by_struct, dim3((p.n + 255) / 256), dim3(256), args, 0, s);
  if (e != cudaSuccess) return e;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((p.n + 255) / 256);
  cfg.blockDim = dim3(256);
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, by_grid_constant, p);
}
