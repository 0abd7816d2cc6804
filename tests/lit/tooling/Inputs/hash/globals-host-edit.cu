__constant__ float coeff = 2.0f;
__device__ int counter[4];
int host_setting = 7;

__global__ void target(float *p) {
  p[threadIdx.x] *= coeff;
  atomicAdd(&counter[0], 1);
}
