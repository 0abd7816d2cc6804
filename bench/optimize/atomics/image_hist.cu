// Naive histogram of an 8-bit image: one thread per pixel of a 2-D grid, one
// global atomicAdd per pixel. Neighbouring pixels have close values, as in
// photographs, so a warp's updates often hit the same bins.
#include "bench_common.h"

__global__ void image_hist(const unsigned char *img, int width, int height, unsigned *hist) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) atomicAdd(&hist[img[y * width + x]], 1u);
}

int main(int argc, char **argv) {
  const int width = 4096, height = 4096;
  auto noise = bench::random_ints((size_t)width * height, 83, 8);
  std::vector<unsigned char> img((size_t)width * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      img[(size_t)y * width + x] = (unsigned char)((x / 32 + y / 32 + noise[(size_t)y * width + x]) & 255);
  unsigned char *dimg = bench::to_device(img);
  unsigned *dhist = bench::device_zeros<unsigned>(256);
  dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
  float ms = bench::time_ms(
      bench::reps_from_args(argc, argv), [&] { CHECK(cudaMemset(dhist, 0, 256 * sizeof(unsigned))); },
      [&] { image_hist<<<grid, block>>>(dimg, width, height, dhist); });
  std::vector<unsigned> want(256, 0);
  for (unsigned char b : img)
    ++want[b];
  auto got = bench::to_host(dhist, 256);
  bool ok = got == want;
  if (!ok) std::fprintf(stderr, "histogram differs (bin 0: got %u, want %u)\n", got[0], want[0]);
  return bench::report("image_hist", ok, ms, 0, 1.0 * width * height);
}
