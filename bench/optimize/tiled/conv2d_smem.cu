// A 5 x 5 convolution whose block stages its 16 x 16 output tile and the
// halo around it in shared memory (block-stride loops over the 20 x 20
// input tile), then reads all 25 taps from there.
#include "bench_common.h"

#define OUT 16
#define R 2
#define IN (OUT + 2 * R)

__constant__ float mask[2 * R + 1][2 * R + 1];

__global__ void conv2d_smem(const float *image, float *result, int width, int height) {
  __shared__ float tile[IN][IN];
  int x0 = blockIdx.x * OUT - R, y0 = blockIdx.y * OUT - R;
  for (int i = threadIdx.y; i < IN; i += blockDim.y)
    for (int j = threadIdx.x; j < IN; j += blockDim.x) {
      int x = x0 + j, y = y0 + i;
      tile[i][j] = x >= 0 && x < width && y >= 0 && y < height ? image[(size_t)y * width + x] : 0.0f;
    }
  __syncthreads();
  int x = blockIdx.x * OUT + threadIdx.x, y = blockIdx.y * OUT + threadIdx.y;
  if (x >= width || y >= height) return;
  float acc = 0.0f;
  for (int i = 0; i <= 2 * R; ++i)
    for (int j = 0; j <= 2 * R; ++j)
      acc += mask[i][j] * tile[threadIdx.y + i][threadIdx.x + j];
  result[(size_t)y * width + x] = acc;
}

int main(int argc, char **argv) {
  const int width = 4096, height = 4096;
  auto image = bench::random_floats((size_t)width * height, 351), taps = bench::random_floats(25, 352);
  cudaMemcpyToSymbol(mask, taps.data(), sizeof(float) * 25);
  float *dimage = bench::to_device(image), *dresult = bench::device_zeros<float>((size_t)width * height);
  dim3 block(OUT, OUT), grid(width / OUT, height / OUT);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [] {}, [&] { conv2d_smem<<<grid, block>>>(dimage, dresult, width, height); });
  std::vector<double> want((size_t)width * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float acc = 0.0f; // the kernel's order
      for (int i = 0; i <= 2 * R; ++i)
        for (int j = 0; j <= 2 * R; ++j) {
          int yy = y - R + i, xx = x - R + j;
          float v = xx >= 0 && xx < width && yy >= 0 && yy < height ? image[(size_t)yy * width + xx] : 0.0f;
          acc += taps[i * (2 * R + 1) + j] * v;
        }
      want[(size_t)y * width + x] = acc;
    }
  bool ok = bench::all_close(bench::to_host(dresult, (size_t)width * height), want, 1e-5, 1e-5);
  return bench::report("conv2d_smem", ok, ms, 50.0 * width * height, 8.0 * width * height);
}
