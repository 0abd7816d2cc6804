// Atomics whose address may differ between threads: combined per warp.
__global__ void buckets(const int *x, int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[x[i] / 64], 1);
}

__global__ void row_sums(const float *a, int w, int h, float *rowsum) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) atomicAdd(&rowsum[y], a[y * w + x]);
}

__global__ void coo_spmv(int nnz, const int *row, const int *col, const float *val, const float *x, float *y) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nnz) atomicAdd(y + row[k], val[k] * x[col[k]]);
}

__global__ void count_and_peak(const int *x, int *count, int *peak, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(count, 1);
    atomicMax(peak, x[i]);
  }
}

__global__ void even_lanes(const float *x, float *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x % 2 == 0 && i < n) atomicAdd(total, x[i]);
}
