// A CPU model of the CUDA a block-level transform's legality rests on, so
// that a check written for twin.h runs without a GPU (g++ -std=c++17
// -include emu.h): the blocks of a launch run one after another; the
// threads of a block are fibers on one OS thread, run one at a time, each
// until it waits at __syncthreads(), at a warp-level operation or at its
// end. A barrier lets them all go on once every live thread waits there (a
// thread that returns takes no further part, as on the hardware), so one
// phase of the block runs at a time and a barrier a rewrite loses shows at
// once. A warp-level operation (shuffles, votes, match, __syncwarp, warp
// reductions) is a meeting of its mask's live lanes, each getting its part
// once all have come; __activemask's lanes are those of the warp that wait
// there when nothing else can run. __shared__ variables are static, one per
// kernel, which the blocks share in turn, every other launch in reverse
// order; device memory is host memory.
// Code that relies on a warp's lanes running in step without such an
// operation (volatile warp-synchronous reductions) computes other values
// here, and a GPU's memory model and timing are not modelled.
// LAUNCH(kernel, grid, block, args...) launches in either world.
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

// What a thread waits for when it hands control back.
enum class Wait { None, Barrier, Warp, Done };
// The warp-level operations, each a meeting of the lanes of a mask.
enum class Op { Shfl, ShflUp, ShflDown, ShflXor, Ballot, Any, All, Match, Sync, Active, Add, Min, Max, And, Or, Xor };

// One thread of the running block.
struct Fiber {
  ucontext_t context;
  std::unique_ptr<char[]> stack;
  uint3 index;
  Wait wait = Wait::None;
  Op op = Op::Sync;
  unsigned mask = 0;
  unsigned long long value = 0, result = 0;
  int lane_arg = 0, width = 32;
  bool is_signed = false;
};

inline ucontext_t scheduler;
inline Fiber *running = nullptr;
inline const std::function<void()> *body = nullptr;
inline int falses = 0;   // __syncthreads_and votes against, this phase
inline int all_true = 1; // the last phase's __syncthreads_and

inline void start() {
  (*body)();
  running->wait = Wait::Done; // returning to the scheduler through uc_link
}

// Back to the scheduler until what `self` waits for has happened.
inline void pause(Wait w) {
  Fiber *self = running;
  self->wait = w;
  swapcontext(&self->context, &scheduler);
}

// `op` with the lanes of `mask`, once they all have reached one: the value it
// gives this lane.
inline unsigned long long warp_op(Op op, unsigned mask, unsigned long long value, int lane_arg = 0, int width = 32,
                                  bool is_signed = false) {
  Fiber *self = running;
  self->op = op, self->mask = mask, self->value = value, self->lane_arg = lane_arg, self->width = width;
  self->is_signed = is_signed;
  pause(Wait::Warp);
  return self->result;
}

[[noreturn]] inline void stuck(const char *why) {
  std::fprintf(stderr, "emu: %s\n", why);
  std::exit(3);
}

// The lane whose value lane `lane` of a shuffle reads, or -1 for its own.
inline int source_lane(const Fiber &f, int lane) {
  int width = f.width > 0 && f.width <= 32 ? f.width : 32, base = lane / width * width, at = lane % width;
  switch (f.op) {
  case Op::Shfl:
    return base + ((f.lane_arg % width) + width) % width;
  case Op::ShflUp:
    return at >= f.lane_arg ? lane - f.lane_arg : -1;
  case Op::ShflDown:
    return at + f.lane_arg < width ? lane + f.lane_arg : -1;
  case Op::ShflXor:
    return (lane ^ f.lane_arg) / width == lane / width ? lane ^ f.lane_arg : -1;
  default:
    return -1;
  }
}

// Gives every lane of `group` (fibers of one warp, indexed by lane) its
// result of their common operation.
inline void meet(Fiber **group, unsigned members) {
  Fiber *first = nullptr;
  for (int l = 0; l < 32 && !first; ++l)
    if (members >> l & 1) first = group[l];
  unsigned long long ballot = 0, sum = 0, lo = first->value, hi = first->value, bit_and = ~0ull, bit_or = 0,
                     bit_xor = 0;
  auto below = [&](unsigned long long a, unsigned long long b) {
    return first->is_signed ? (long long)a < (long long)b : a < b;
  };
  for (int l = 0; l < 32; ++l) {
    if (!(members >> l & 1)) continue;
    if (group[l]->op != first->op) stuck("the lanes of a warp meet at different warp-level operations");
    unsigned long long v = group[l]->value;
    ballot |= (unsigned long long)(v != 0) << l;
    sum += v, bit_and &= v, bit_or |= v, bit_xor ^= v;
    if (below(v, lo)) lo = v;
    if (below(hi, v)) hi = v;
  }
  for (int l = 0; l < 32; ++l) {
    if (!(members >> l & 1)) continue;
    Fiber &f = *group[l];
    switch (first->op) {
    case Op::Shfl:
    case Op::ShflUp:
    case Op::ShflDown:
    case Op::ShflXor: {
      int src = source_lane(f, l);
      f.result = src >= 0 && (members >> src & 1) ? group[src]->value : f.value;
      break;
    }
    case Op::Ballot:
      f.result = ballot;
      break;
    case Op::Any:
      f.result = ballot != 0;
      break;
    case Op::All:
      f.result = ballot == members;
      break;
    case Op::Match: {
      unsigned same = 0;
      for (int m = 0; m < 32; ++m)
        if ((members >> m & 1) && group[m]->value == f.value) same |= 1u << m;
      f.result = same;
      break;
    }
    case Op::Sync:
      break;
    case Op::Active:
      f.result = members;
      break;
    case Op::Add:
      f.result = sum;
      break;
    case Op::Min:
      f.result = lo;
      break;
    case Op::Max:
      f.result = hi;
      break;
    case Op::And:
      f.result = bit_and;
      break;
    case Op::Or:
      f.result = bit_or;
      break;
    case Op::Xor:
      f.result = bit_xor;
      break;
    }
    f.wait = Wait::None;
  }
}

// Releases the lanes of warps whose operations can complete: every live lane
// of a waiting lane's mask waits at one too; failing that (nothing else can
// run), __activemask's lanes, with those of their warp that wait there.
inline bool release_warps(std::vector<Fiber> &fibers, bool active) {
  bool released = false;
  for (size_t w = 0; w * 32 < fibers.size(); ++w) {
    Fiber *lane[32] = {};
    unsigned live = 0, waiting = 0;
    for (int l = 0; l < 32 && w * 32 + l < fibers.size(); ++l) {
      lane[l] = &fibers[w * 32 + l];
      if (lane[l]->wait != Wait::Done) live |= 1u << l;
      if (lane[l]->wait == Wait::Warp) waiting |= 1u << l;
    }
    for (int l = 0; l < 32; ++l) {
      if (!(waiting >> l & 1)) continue;
      bool activemask = lane[l]->op == Op::Active;
      unsigned members = activemask ? waiting : lane[l]->mask & live;
      if (activemask) {
        if (!active) continue;
        members = 0;
        for (int m = 0; m < 32; ++m)
          if ((waiting >> m & 1) && lane[m]->op == Op::Active) members |= 1u << m;
      }
      if ((members & waiting) != members || !(members >> l & 1)) continue;
      meet(lane, members);
      waiting &= ~members;
      released = true;
    }
  }
  return released;
}

// The launches so far (one count for every kernel).
inline unsigned launches = 0;

// Runs `kernel` for every thread of grid x block, a block at a time; a
// block's threads run one at a time, each until it waits at a barrier or a
// warp-level operation or ends.
template <typename F> void launch(dim3 grid, dim3 threads, F &&kernel) {
  const std::function<void()> fn = kernel;
  body = &fn;
  unsigned n = threads.x * threads.y * threads.z;
  std::vector<Fiber> fibers(n);
  const size_t stack = 64 * 1024;
  for (Fiber &f : fibers)
    f.stack.reset(new char[stack]);
  // Every other launch runs its blocks last to first, so that a block that
  // reads shared cells none of its threads wrote finds other stale values in
  // the two launches of a check.
  const bool reverse = launches++ % 2 == 1;
  const unsigned long long count = (unsigned long long)grid.x * grid.y * grid.z;
  for (unsigned long long b = 0; b < count; ++b) {
    const unsigned long long flat = reverse ? count - 1 - b : b;
    const unsigned bx = flat % grid.x, by = flat / grid.x % grid.y, bz = flat / ((unsigned long long)grid.x * grid.y);
    for (unsigned t = 0; t < n; ++t) {
      Fiber &f = fibers[t];
      f.index = {t % threads.x, t / threads.x % threads.y, t / (threads.x * threads.y)};
      f.wait = Wait::None;
      getcontext(&f.context);
      f.context.uc_stack.ss_sp = f.stack.get();
      f.context.uc_stack.ss_size = stack;
      f.context.uc_link = &scheduler;
      makecontext(&f.context, start, 0);
    }
    for (;;) {
      bool ran = false;
      for (Fiber &f : fibers) {
        if (f.wait != Wait::None) continue;
        threadIdx = f.index;
        blockIdx = {bx, by, bz};
        blockDim = threads;
        gridDim = grid;
        running = &f;
        swapcontext(&scheduler, &f.context);
        ran = true;
      }
      if (ran || release_warps(fibers, false) || release_warps(fibers, true)) continue;
      bool done = true, barrier = true;
      for (const Fiber &f : fibers) {
        done = done && f.wait == Wait::Done;
        barrier = barrier && (f.wait == Wait::Done || f.wait == Wait::Barrier);
      }
      if (done) break;
      if (!barrier) stuck("a warp-level operation waits for lanes that wait elsewhere");
      for (Fiber &f : fibers) // every live thread has reached the barrier
        if (f.wait == Wait::Barrier) f.wait = Wait::None;
      all_true = falses == 0;
      falses = 0;
    }
  }
}

template <typename T> unsigned long long bits(T v) {
  static_assert(sizeof(T) <= 8, "warp-level operations on values of at most 8 bytes");
  unsigned long long out = 0;
  std::memcpy(&out, &v, sizeof(T));
  return out;
}
template <typename T> T from_bits(unsigned long long b) {
  T out;
  std::memcpy(&out, &b, sizeof(T));
  return out;
}

} // namespace emu

inline void __syncthreads() { emu::pause(emu::Wait::Barrier); }
inline int __syncthreads_and(int predicate) {
  if (!predicate) ++emu::falses;
  emu::pause(emu::Wait::Barrier);
  return emu::all_true;
}
inline void __threadfence() {}
inline void __threadfence_block() {}

// Warp-level operations: the lanes of the mask meet, then each gets its part.
template <typename T> T __shfl_sync(unsigned mask, T v, int lane, int width = 32) {
  return emu::from_bits<T>(emu::warp_op(emu::Op::Shfl, mask, emu::bits(v), lane, width));
}
template <typename T> T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  return emu::from_bits<T>(emu::warp_op(emu::Op::ShflUp, mask, emu::bits(v), (int)delta, width));
}
template <typename T> T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  return emu::from_bits<T>(emu::warp_op(emu::Op::ShflDown, mask, emu::bits(v), (int)delta, width));
}
template <typename T> T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
  return emu::from_bits<T>(emu::warp_op(emu::Op::ShflXor, mask, emu::bits(v), lane_mask, width));
}
inline unsigned __ballot_sync(unsigned mask, int p) { return (unsigned)emu::warp_op(emu::Op::Ballot, mask, p != 0); }
inline int __any_sync(unsigned mask, int p) { return (int)emu::warp_op(emu::Op::Any, mask, p != 0); }
inline int __all_sync(unsigned mask, int p) { return (int)emu::warp_op(emu::Op::All, mask, p != 0); }
template <typename T> unsigned __match_any_sync(unsigned mask, T v) {
  return (unsigned)emu::warp_op(emu::Op::Match, mask, emu::bits(v));
}
inline void __syncwarp(unsigned mask = 0xffffffffu) { emu::warp_op(emu::Op::Sync, mask, 0); }
inline unsigned __activemask() { return (unsigned)emu::warp_op(emu::Op::Active, 0, 0); }
inline unsigned __reduce_add_sync(unsigned mask, unsigned v) { return (unsigned)emu::warp_op(emu::Op::Add, mask, v); }
inline unsigned __reduce_min_sync(unsigned mask, unsigned v) { return (unsigned)emu::warp_op(emu::Op::Min, mask, v); }
inline unsigned __reduce_max_sync(unsigned mask, unsigned v) { return (unsigned)emu::warp_op(emu::Op::Max, mask, v); }
inline int __reduce_min_sync(unsigned mask, int v) {
  return (int)emu::warp_op(emu::Op::Min, mask, (unsigned long long)(long long)v, 0, 32, true);
}
inline int __reduce_max_sync(unsigned mask, int v) {
  return (int)emu::warp_op(emu::Op::Max, mask, (unsigned long long)(long long)v, 0, 32, true);
}
inline unsigned __reduce_and_sync(unsigned mask, unsigned v) { return (unsigned)emu::warp_op(emu::Op::And, mask, v); }
inline unsigned __reduce_or_sync(unsigned mask, unsigned v) { return (unsigned)emu::warp_op(emu::Op::Or, mask, v); }
inline unsigned __reduce_xor_sync(unsigned mask, unsigned v) { return (unsigned)emu::warp_op(emu::Op::Xor, mask, v); }

// One thread runs at a time: atomics are plain updates that return the old value.
template <typename T> T atomicAdd(T *p, T v) { return std::exchange(*p, *p + v); }
template <typename T> T atomicSub(T *p, T v) { return std::exchange(*p, *p - v); }
template <typename T> T atomicExch(T *p, T v) { return std::exchange(*p, v); }
template <typename T> T atomicMax(T *p, T v) { return std::exchange(*p, std::max(*p, v)); }
template <typename T> T atomicMin(T *p, T v) { return std::exchange(*p, std::min(*p, v)); }
template <typename T> T atomicOr(T *p, T v) { return std::exchange(*p, *p | v); }
inline int __popc(unsigned v) { return __builtin_popcount(v); }
// Cache hints and fast intrinsics: their plain meaning.
template <typename T> T __ldg(const T *p) { return *p; }
template <typename T> T __ldcs(const T *p) { return *p; }
template <typename T> T __ldcg(const T *p) { return *p; }
template <typename T> T __ldca(const T *p) { return *p; }
template <typename T> T __ldlu(const T *p) { return *p; }
// CUDA declares an overload per element type, so the value converts to it:
// T is deduced from the pointer alone.
template <typename T> struct emu_element { using type = T; };
template <typename T> void __stcs(T *p, typename emu_element<T>::type v) { *p = v; }
template <typename T> void __stcg(T *p, typename emu_element<T>::type v) { *p = v; }
template <typename T> void __stwt(T *p, typename emu_element<T>::type v) { *p = v; }
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
