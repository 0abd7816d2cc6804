// A CPU model of the CUDA a block-level transform's legality rests on, so
// that a check written for twin.h runs without a GPU (g++ -std=c++20
// -include emu.h): the blocks of a launch run one after another; the
// threads of a block are OS threads that meet at __syncthreads() (a thread
// that returns takes no further part, as on the hardware); __shared__
// variables are static, one per kernel, which the blocks run one at a time
// share in turn; device memory is host memory. It does not model warps:
// warp-level operations, volatile warp-synchronous code and the memory
// model of a GPU are not there, and a kernel that uses them does not
// compile against it. LAUNCH(kernel, grid, block, args...) launches in
// either world.
#pragma once

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h>
#include <thread>
#include <vector>

struct uint3 {
  unsigned x = 0, y = 0, z = 0;
};
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

inline thread_local uint3 threadIdx, blockIdx;
inline thread_local dim3 blockDim, gridDim;
constexpr int warpSize = 32;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
#define __restrict__ __restrict

namespace emu {

// What the threads of the running block share.
struct Block {
  struct Vote {
    std::atomic<int> *falses;
    int *result;
    void operator()() noexcept { // runs once per phase, before any thread goes on
      *result = falses->load() == 0;
      falses->store(0);
    }
  };
  std::atomic<int> falses{0};
  int all = 1;
  std::barrier<Vote> meet;
  explicit Block(unsigned threads) : meet(threads, Vote{&falses, &all}) {}
};
inline thread_local Block *block = nullptr;

// Runs `kernel` for every thread of grid x block, a block at a time.
template <typename F> void launch(dim3 grid, dim3 threads, F &&kernel) {
  unsigned n = threads.x * threads.y * threads.z;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        Block b(n);
        std::vector<std::thread> running;
        for (unsigned t = 0; t < n; ++t)
          running.emplace_back([&, t] {
            threadIdx = {t % threads.x, t / threads.x % threads.y, t / (threads.x * threads.y)};
            blockIdx = {bx, by, bz};
            blockDim = threads;
            gridDim = grid;
            block = &b;
            kernel();
            b.meet.arrive_and_drop();
          });
        for (std::thread &r : running)
          r.join();
      }
}

} // namespace emu

inline void __syncthreads() { emu::block->meet.arrive_and_wait(); }
inline int __syncthreads_and(int predicate) {
  if (!predicate) emu::block->falses.fetch_add(1);
  emu::block->meet.arrive_and_wait();
  return emu::block->all;
}
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }

template <typename T> T atomicAdd(T *p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }
template <typename T> T atomicSub(T *p, T v) { return std::atomic_ref<T>(*p).fetch_sub(v); }
template <typename T> T atomicExch(T *p, T v) { return std::atomic_ref<T>(*p).exchange(v); }
template <typename T> T atomicMax(T *p, T v) {
  std::atomic_ref<T> a(*p);
  T old = a.load();
  while (old < v && !a.compare_exchange_weak(old, v)) {
  }
  return old;
}
template <typename T> T atomicMin(T *p, T v) {
  std::atomic_ref<T> a(*p);
  T old = a.load();
  while (v < old && !a.compare_exchange_weak(old, v)) {
  }
  return old;
}
template <typename T> T __ldg(const T *p) { return *p; }

inline int min(int a, int b) { return std::min(a, b); }
inline int max(int a, int b) { return std::max(a, b); }
inline unsigned min(unsigned a, unsigned b) { return std::min(a, b); }
inline unsigned max(unsigned a, unsigned b) { return std::max(a, b); }
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }

enum cudaError_t { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
template <typename T> cudaError_t cudaMalloc(T **p, size_t bytes) {
  *p = static_cast<T *>(std::calloc(bytes ? bytes : 1, 1));
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *to, const void *from, size_t bytes, cudaMemcpyKind) {
  std::memcpy(to, from, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaFree(void *p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline const char *cudaGetErrorString(cudaError_t) { return "no error"; }

#define LAUNCH(kernel, grid, threads, ...) emu::launch((grid), (threads), [&] { kernel(__VA_ARGS__); })
