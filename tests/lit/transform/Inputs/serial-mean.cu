// Per-channel mean, C89 style: the loop variable is reused, the bound is a
// constant, and thread 0 accumulates straight into global memory.
#define THREADS 512
__global__ void channel_mean(const float *x, int batch, int channels, int spatial, float *mean) {
  __shared__ float local[THREADS];
  int id = threadIdx.x;
  int c = blockIdx.x;
  int i, b;
  local[id] = 0;
  for (b = 0; b < batch; ++b)
    for (i = 0; i < spatial; i += THREADS)
      local[id] += (i + id < spatial) ? x[(b * channels + c) * spatial + i + id] : 0.0f;
  __syncthreads();
  if (id == 0) {
    mean[c] = 0;
    for (i = 0; i < THREADS; ++i) {
      mean[c] += local[i];
    }
    mean[c] /= spatial * batch;
  }
}
