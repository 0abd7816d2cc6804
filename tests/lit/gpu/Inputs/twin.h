// What the GPU checks of a transform share: the kernels of ORIGINAL as
// written (namespace orig) and of VARIANT, the transform's output (namespace
// var), copies to and from the device, and an element-wise comparison.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstring>
#include <math.h>
#include <vector>

#ifndef LAUNCH // emu.h runs it on the CPU
#define LAUNCH(kernel, grid, threads, ...) kernel<<<(grid), (threads)>>>(__VA_ARGS__)
#endif

namespace orig {
#include ORIGINAL
}
namespace var {
#include VARIANT
}

template <typename T> T *upload(const std::vector<T> &h) {
  T *d = nullptr;
  cudaMalloc(&d, h.size() * sizeof(T));
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

template <typename T> std::vector<T> download(const T *d, size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}

// Whether every element of a and b is equal within `tol` (0: bitwise);
// prints the first that is not.
template <typename T> bool same(const char *kernel, const std::vector<T> &a, const std::vector<T> &b, double tol) {
  for (size_t i = 0; i < a.size(); ++i) {
    bool ok = tol == 0 ? std::memcmp(&a[i], &b[i], sizeof(T)) == 0 : std::fabs((double)a[i] - (double)b[i]) <= tol;
    if (!ok) {
      std::printf("%s differs at %zu: %g vs %g\n", kernel, i, (double)a[i], (double)b[i]);
      return false;
    }
  }
  return true;
}

// n values in [-1, 1], spread by a multiplicative hash of the index.
template <typename T = float> std::vector<T> values(size_t n) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = (T)((long)((i * 2654435761u) % 2001) - 1000) / (T)1000;
  return v;
}

// The blocks of `per_block` items that cover `items`.
inline unsigned blocks(unsigned items, unsigned per_block) { return (items + per_block - 1) / per_block; }

// Prints "<kernel> same" when `ok` and the device reports no error.
inline int verdict(const char *kernel, bool ok) {
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::printf("%s: %s\n", kernel, cudaGetErrorString(e));
    return 1;
  }
  if (ok) std::printf("%s same\n", kernel);
  return ok ? 0 : 1;
}
