// A CPU model of the CUDA a block-level transform's legality rests on, so
// that a check written for twin.h runs without a GPU (g++ -std=c++17
// -include emu.h): the blocks of a launch run one after another; the
// threads of a block are fibers on one OS thread, each run until its next
// __syncthreads() (or its end) before the next one starts, so that one
// phase of the block runs at a time, as barriers promise, and a barrier a
// rewrite loses shows at once (a thread that returns takes no further part,
// as on the hardware); __shared__ variables are static, one per kernel,
// which the blocks share in turn; device memory is host memory. It does
// not model warps: warp-level operations, volatile warp-synchronous code
// and a GPU's memory model are not there, and a kernel that uses them does
// not compile against it. LAUNCH(kernel, grid, block, args...) launches in
// either world.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <math.h>
#include <memory>
#include <ucontext.h>
#include <utility>
#include <vector>

struct uint3 {
  unsigned x = 0, y = 0, z = 0;
};
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

// CUDA's vector types, with its alignments (uint3 is above).
#define EMU_VECTORS(name, T, align2, align4)                                                                           \
  struct alignas(align2) name##2 {                                                                                     \
    T x, y;                                                                                                            \
  };                                                                                                                   \
  struct alignas(align4) name##4 {                                                                                     \
    T x, y, z, w;                                                                                                      \
  };                                                                                                                   \
  inline name##2 make_##name##2(T x, T y) { return {x, y}; }                                                           \
  inline name##4 make_##name##4(T x, T y, T z, T w) { return {x, y, z, w}; }
EMU_VECTORS(char, signed char, 2, 4)
EMU_VECTORS(uchar, unsigned char, 2, 4)
EMU_VECTORS(short, short, 4, 8)
EMU_VECTORS(ushort, unsigned short, 4, 8)
EMU_VECTORS(int, int, 8, 16)
EMU_VECTORS(uint, unsigned, 8, 16)
EMU_VECTORS(float, float, 8, 16)
EMU_VECTORS(longlong, long long, 16, 16)
EMU_VECTORS(ulonglong, unsigned long long, 16, 16)
EMU_VECTORS(double, double, 16, 16)
#undef EMU_VECTORS
struct float3 {
  float x, y, z;
};
inline float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }

inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
constexpr int warpSize = 32;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__

namespace emu {

// One thread of the running block.
struct Fiber {
  ucontext_t context;
  std::unique_ptr<char[]> stack;
  uint3 index;
  bool done = false;
};

inline ucontext_t scheduler;
inline Fiber *running = nullptr;
inline const std::function<void()> *body = nullptr;
inline int falses = 0;   // __syncthreads_and votes against, this phase
inline int all_true = 1; // the last phase's __syncthreads_and

inline void start() {
  (*body)();
  running->done = true; // returning to the scheduler through uc_link
}

// Back to the scheduler until every thread of the block has reached a barrier.
inline void wait() { swapcontext(&running->context, &scheduler); }

// Runs `kernel` for every thread of grid x block, a block at a time.
template <typename F> void launch(dim3 grid, dim3 threads, F &&kernel) {
  const std::function<void()> fn = kernel;
  body = &fn;
  unsigned n = threads.x * threads.y * threads.z;
  std::vector<Fiber> fibers(n);
  const size_t stack = 64 * 1024;
  for (Fiber &f : fibers)
    f.stack.reset(new char[stack]);
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        for (unsigned t = 0; t < n; ++t) {
          Fiber &f = fibers[t];
          f.index = {t % threads.x, t / threads.x % threads.y, t / (threads.x * threads.y)};
          f.done = false;
          getcontext(&f.context);
          f.context.uc_stack.ss_sp = f.stack.get();
          f.context.uc_stack.ss_size = stack;
          f.context.uc_link = &scheduler;
          makecontext(&f.context, start, 0);
        }
        for (bool live = true; live;) { // a phase: every live thread up to its next barrier
          live = false;
          for (Fiber &f : fibers) {
            if (f.done) continue;
            threadIdx = f.index;
            blockIdx = {bx, by, bz};
            blockDim = threads;
            gridDim = grid;
            running = &f;
            swapcontext(&scheduler, &f.context);
            live = live || !f.done;
          }
          all_true = falses == 0;
          falses = 0;
        }
      }
}

} // namespace emu

inline void __syncthreads() { emu::wait(); }
inline int __syncthreads_and(int predicate) {
  if (!predicate) ++emu::falses;
  emu::wait();
  return emu::all_true;
}
inline void __threadfence() {}
inline void __threadfence_block() {}

// One thread runs at a time: atomics are plain updates that return the old value.
template <typename T> T atomicAdd(T *p, T v) { return std::exchange(*p, *p + v); }
template <typename T> T atomicSub(T *p, T v) { return std::exchange(*p, *p - v); }
template <typename T> T atomicExch(T *p, T v) { return std::exchange(*p, v); }
template <typename T> T atomicMax(T *p, T v) { return std::exchange(*p, std::max(*p, v)); }
template <typename T> T atomicMin(T *p, T v) { return std::exchange(*p, std::min(*p, v)); }
// Cache hints and fast intrinsics: their plain meaning.
template <typename T> T __ldg(const T *p) { return *p; }
template <typename T> T __ldcs(const T *p) { return *p; }
template <typename T> T __ldcg(const T *p) { return *p; }
template <typename T> T __ldca(const T *p) { return *p; }
template <typename T> T __ldlu(const T *p) { return *p; }
template <typename T> void __stcs(T *p, T v) { *p = v; }
template <typename T> void __stcg(T *p, T v) { *p = v; }
template <typename T> void __stwt(T *p, T v) { *p = v; }
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __saturatef(float x) { return fminf(fmaxf(x, 0.0f), 1.0f); }

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
