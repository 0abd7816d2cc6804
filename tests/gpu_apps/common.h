// Helpers shared by kbcc's GPU test apps.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                    \
  do {                                                                                                 \
    cudaError_t e_ = (call);                                                                           \
    if (e_ != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

// Deterministic pseudo-random floats in [-1, 1).
inline void fill(float *h, int n, unsigned seed) {
  for (int i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    h[i] = (seed >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
}
