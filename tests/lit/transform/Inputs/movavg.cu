// A trailing moving average, its work under the thread's guard 'if (idx < n) { ... }'.
__global__ void movavg(const float *in, float *out, int n, int width) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) {
    float sum = 0.0f;
    int count = 0;
    for (int t = 0; t < width; ++t) {
      int j = idx - t;
      if (j >= 0) {
        sum += in[j];
        count++;
      }
    }
    out[idx] = sum / count;
  }
}
