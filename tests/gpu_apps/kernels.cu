// Test app: struct parameters holding pointers, templates, integer and float
// kernels, a kernel using __device__/__constant__ globals, a pointer-array
// kernel (not replayable), an index kernel (replayable), and the
// saxpy/block_sum kernels the planted bad variants in variants/ replace.
#include "common.h"

#include <cstdint>
#include <vector>

struct Slice {
  const float *in;
  float *out;
  int n;
  float scale;
};

template <class T> struct Axpy {
  T a;
  const T *x;
  T *y;
  int n;
};

__constant__ float bias[4];
__device__ unsigned long long calls;

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void block_sum(const float *in, float *out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int w = 128; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__global__ void scale_slice(Slice s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.n) s.out[i] = s.in[i] * s.scale + bias[i % 4];
  if (i == 0) atomicAdd(&calls, 1ull);
}

template <class T> __global__ void axpy_t(Axpy<T> p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) p.y[i] = p.a * p.x[i] + p.y[i];
}

__global__ void histogram(const int *keys, int n, unsigned *bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[keys[i] & 63], 1u);
}

__global__ void gather_rows(float *const *rows, float *out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = rows[i % 2][i];
}

// Indexes whose 32-bit halves, read as one 64-bit word, happen to equal a
// device address: still replayable (int buffers hold no pointers).
__global__ void pick(const int *idx, const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[idx[i] & 1023];
}

int main() {
  const int n = 1 << 20;
  std::vector<float> hx(n), hy(n);
  fill(hx.data(), n, 1);
  fill(hy.data(), n, 2);
  // saxpy works on ns elements in allocations of exactly that size (not a
  // multiple of the 2 MB granule), so an out-of-bounds write by a variant stays
  // inside mapped memory where only the sanitizer sees it.
  const int ns = n - 1000;
  float *x, *y, *z, *sums, *sx, *sy;
  double *dx, *dy;
  int *keys;
  unsigned *bins;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&z, n * sizeof(float)));
  CHECK(cudaMalloc(&sums, (n / 256) * sizeof(float)));
  CHECK(cudaMalloc(&sx, ns * sizeof(float)));
  CHECK(cudaMalloc(&sy, ns * sizeof(float)));
  CHECK(cudaMemcpy(sx, hx.data(), ns * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(sy, hy.data(), ns * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&dx, 4096 * sizeof(double)));
  CHECK(cudaMalloc(&dy, 4096 * sizeof(double)));
  CHECK(cudaMalloc(&keys, n * sizeof(int)));
  CHECK(cudaMalloc(&bins, 64 * sizeof(unsigned)));
  CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(keys, hx.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(bins, 0, 64 * sizeof(unsigned)));
  CHECK(cudaMemset(dx, 0, 4096 * sizeof(double)));
  CHECK(cudaMemset(dy, 0, 4096 * sizeof(double)));
  float hb[4] = {0.5f, -0.25f, 1.0f, 2.0f};
  CHECK(cudaMemcpyToSymbol(bias, hb, sizeof hb));

  saxpy<<<(ns + 255) / 256, 256>>>(ns, 2.0f, sx, sy);
  block_sum<<<64, 256>>>(y, sums, 64 * 256); // small: racecheck is slow
  scale_slice<<<n / 256, 256>>>(Slice{x, z, n, 3.0f});
  axpy_t<float><<<n / 256, 256>>>(Axpy<float>{0.5f, x, z, n});
  axpy_t<double><<<16, 256>>>(Axpy<double>{1.5, dx, dy, 4096});
  histogram<<<n / 256, 256>>>(keys, n, bins);
  float **rows;
  CHECK(cudaMalloc(&rows, 2 * sizeof(float *)));
  float *hrows[2] = {x, y};
  CHECK(cudaMemcpy(rows, hrows, sizeof hrows, cudaMemcpyHostToDevice));
  gather_rows<<<1, 64>>>(rows, z, 64);
  int *idx;
  CHECK(cudaMalloc(&idx, 256 * sizeof(int)));
  uint64_t address = reinterpret_cast<uintptr_t>(x);
  int hidx[256];
  for (int i = 0; i < 256; i += 2) {
    hidx[i] = static_cast<int>(address & 0xffffffffu);
    hidx[i + 1] = static_cast<int>(address >> 32);
  }
  CHECK(cudaMemcpy(idx, hidx, sizeof hidx, cudaMemcpyHostToDevice));
  pick<<<1, 256>>>(idx, x, z, 256);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  std::vector<float> out(n);
  CHECK(cudaMemcpy(out.data(), sy, ns * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < ns; i += 4097)
    if (out[i] != 2.0f * hx[i] + hy[i]) {
      std::printf("kernels: wrong result at %d\n", i);
      return 1;
    }
  std::printf("kernels: ok\n");
  return 0;
}
