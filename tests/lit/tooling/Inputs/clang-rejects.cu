// nvcc accepts this unit; clang rejects the host function named (unevaluated)
// in `host_call_kernel`.
int host_only(int x) { return x + 1; }

__global__ void host_call_kernel(int *out) { out[threadIdx.x] = sizeof(host_only(1)); }

__global__ void clean_kernel(int *out) { out[threadIdx.x] = 2; }
