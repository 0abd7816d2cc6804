// The module of module_globals.cu with `gain`, which apply_gain uses, of
// another size: a replay of apply_gain with this cubin is an error.
__device__ float gain[8] = {2.f, 3.f, 4.f, 5.f, 2.f, 3.f, 4.f, 5.f};

__global__ void apply_gain(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= gain[i & 7];
}
