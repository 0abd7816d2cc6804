// An image's histogram, one thread per pixel of a 2-D grid.
#include <cuda_runtime.h>

__global__ void histogram2d(const unsigned char *img, int width, int height, unsigned int *hist) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) atomicAdd(&hist[img[y * width + x]], 1u);
}
