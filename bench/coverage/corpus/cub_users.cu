// CUB inside user kernels (block reduce/scan, warp reduce, block radix sort)
// and device-wide algorithms called from the host.
#include <cub/cub.cuh>

template <int BLOCK>
__global__ void block_max(const float *in, float *out, int n) {
  using Reduce = cub::BlockReduce<float, BLOCK>;
  __shared__ typename Reduce::TempStorage temp;
  int i = blockIdx.x * BLOCK + threadIdx.x;
  float v = i < n ? in[i] : -INFINITY;
  float m = Reduce(temp).Reduce(v, cuda::maximum<>{});
  if (threadIdx.x == 0) out[blockIdx.x] = m;
}

__global__ void block_prefix(const int *in, int *out, int n) {
  using Scan = cub::BlockScan<int, 128>;
  __shared__ typename Scan::TempStorage temp;
  int i = blockIdx.x * 128 + threadIdx.x;
  int v = i < n ? in[i] : 0, r = 0;
  Scan(temp).ExclusiveSum(v, r);
  if (i < n) out[i] = r;
}

__global__ void warp_sums(const double *in, double *out) {
  using WarpReduce = cub::WarpReduce<double>;
  __shared__ typename WarpReduce::TempStorage temp[4];
  int warp = threadIdx.x / 32;
  double s = WarpReduce(temp[warp]).Sum(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (threadIdx.x % 32 == 0) out[blockIdx.x * 4 + warp] = s;
}

__global__ void sort_keys(unsigned *keys) {
  using Sort = cub::BlockRadixSort<unsigned, 128, 4>;
  __shared__ typename Sort::TempStorage temp;
  unsigned k[4];
  for (int j = 0; j < 4; ++j)
    k[j] = keys[blockIdx.x * 512 + threadIdx.x * 4 + j];
  Sort(temp).Sort(k);
  for (int j = 0; j < 4; ++j)
    keys[blockIdx.x * 512 + threadIdx.x * 4 + j] = k[j];
}

void run_cub(const float *in, float *out, int n, void *temp, size_t temp_bytes, cudaStream_t s) {
  block_max<256><<<(n + 255) / 256, 256, 0, s>>>(in, out, n);
  block_max<512><<<(n + 511) / 512, 512, 0, s>>>(in, out, n);
  cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, s);
}
