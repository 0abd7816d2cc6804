// thread_coarsening across barriers (transform/lockstep.h): which variables
// stay one per thread, which get a copy per virtual thread, the dimension
// and factors the captured launches allow, the mapping, and the refusals.
#include "cache/variant.h"
#include "parsed.h"
#include "transform/transform.h"

#include <gtest/gtest.h>

using namespace kbcc::transform;
using kbcc::transform::test::parsed;

namespace {

// A kernel's Input, launched with blocks of bx x by threads (none: no capture).
struct Coarsened {
  KernelAst ast;
  Input in;
  Coarsened(const std::string &text, unsigned bx, unsigned by) : ast(parsed(text)) {
    in.source = ast.source();
    in.ast = &ast;
    if (bx == 0) return;
    kbcc::launch::Launch l;
    l.grid[0] = 8;
    l.block[0] = bx;
    l.block[1] = by;
    in.launches = {l};
  }
  kbcc::Expected<std::vector<Axis>> space() const { return find_transform("thread_coarsening")->space(in); }
  kbcc::Expected<Output> apply(const Params &p) const { return find_transform("thread_coarsening")->apply(in, p); }
};

std::string refusal(const std::string &text) {
  Coarsened c(text, 128, 1);
  auto axes = c.space();
  if (axes) return "applies";
  EXPECT_EQ(axes.error().code, "not-applicable");
  return axes.error().message;
}

const char *kRows = R"(__global__ void rows(const float *in, float *out, int n) {
  __shared__ float tile[8][33];
  int base = blockIdx.x * blockDim.x;
  float keep = 0.0f;
  for (int t = 0; t < n; t += 32) {
    tile[threadIdx.y][threadIdx.x] = in[(base + threadIdx.y) * n + t + threadIdx.x];
    __syncthreads();
    keep += tile[threadIdx.x % 8][threadIdx.y];
    __syncthreads();
  }
  out[base + threadIdx.y * 32 + threadIdx.x] = keep;
})";

} // namespace

TEST(Lockstep, UniformVariablesStayOnePerThreadAndCarriedOnesGetCopies) {
  Coarsened c(kRows, 32, 8);
  auto out = c.apply({{"factor", "1x4"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_NE(out->source.find("int base = blockIdx.x * blockDim.x;"), std::string::npos) << out->source;
  EXPECT_EQ(out->source.find("__kbcc_base"), std::string::npos) << out->source;
  EXPECT_NE(out->source.find("for (int t = 0; t < n; t += 32) {"), std::string::npos) << out->source;
  EXPECT_NE(out->source.find("float __kbcc_keep_0[4];"), std::string::npos) << out->source;
  EXPECT_NE(out->source.find("tile[__kbcc_vy][threadIdx.x] = in[(base + __kbcc_vy) * n + t + threadIdx.x];"),
            std::string::npos)
      << out->source;
  EXPECT_EQ(out->numerics, kbcc::cache::kNumericsExact);
}

TEST(Lockstep, TheMappingDividesTheCoarsenedExtents) {
  Coarsened c(kRows, 32, 8);
  auto rows = c.apply({{"factor", "1x2"}});
  ASSERT_TRUE(rows && rows->launch);
  EXPECT_EQ(rows->launch->block[0], "block.x");
  EXPECT_EQ(rows->launch->block[1], "block.y / 2");
  EXPECT_EQ(rows->launch->grid[0], "grid.x");
  EXPECT_EQ(rows->launch->shared, "shared");
  EXPECT_EQ(rows->launch->preconditions, std::vector<std::string>{"block.y % 2 == 0"});
  auto both = c.apply({{"factor", "2x4"}});
  ASSERT_TRUE(both && both->launch);
  EXPECT_EQ(both->launch->block[0], "block.x / 2");
  EXPECT_EQ(both->launch->block[1], "block.y / 4");
  EXPECT_EQ(both->launch->preconditions, (std::vector<std::string>{"block.x % 2 == 0", "block.y % 4 == 0"}));
  EXPECT_NE(both->source.find("const unsigned __kbcc_vy = (__kbcc_vk / 2u) * blockDim.y + threadIdx.y;"),
            std::string::npos)
      << both->source;
  EXPECT_FALSE(c.apply({{"factor", "3"}}));
  EXPECT_FALSE(c.apply({{"factor", "8x4"}})); // 32 per thread
}

TEST(Lockstep, CapturedBlocksChooseTheDimensionAndTheFactors) {
  auto factors = [](unsigned bx, unsigned by) {
    auto axes = Coarsened(kRows, bx, by).space();
    return axes ? axes->front().values : std::vector<std::string>{axes.error().message};
  };
  EXPECT_EQ(factors(32, 8), (std::vector<std::string>{"1x4", "1x2", "1x8", "2x4", "2x2"})); // 32 threads left
  EXPECT_EQ(factors(64, 2), (std::vector<std::string>{"1x2", "2x2"}));                      // 2 rows
  EXPECT_EQ(factors(128, 1), (std::vector<std::string>{"4", "2"})); // one row: x, 32 threads left at most
  auto none = factors(32, 1);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_NE(none[0].find("no factor of 2, 4 or 8 threads in x per thread divides every captured block"),
            std::string::npos)
      << none[0];
  auto x = Coarsened(kRows, 128, 1).apply({{"factor", "4"}});
  ASSERT_TRUE(x && x->launch);
  EXPECT_EQ(x->launch->block[0], "block.x / 4");
  EXPECT_NE(x->source.find("const unsigned __kbcc_vx = __kbcc_vk * blockDim.x + threadIdx.x;"), std::string::npos);
}

TEST(Lockstep, TheSerialOrderIsOfferedOnlyWhereItDiffers) {
  auto orders = [](const std::string &text) {
    auto axes = Coarsened(text, 128, 1).space();
    EXPECT_TRUE(axes) << axes.error().message;
    return axes ? axes->back().values : std::vector<std::string>{};
  };
  EXPECT_EQ(orders(kRows), (std::vector<std::string>{"lockstep"})); // its loop holds a barrier
  EXPECT_EQ(orders(R"(__global__ void halo(const float *in, float *out) {
  __shared__ float w[136];
  w[threadIdx.x + 4] = in[blockIdx.x * 128 + threadIdx.x];
  __syncthreads();
  float s = 0.0f;
  for (int o = -4; o <= 4; ++o)
    s += w[threadIdx.x + 4 + o];
  out[blockIdx.x * 128 + threadIdx.x] = s;
})"),
            (std::vector<std::string>{"lockstep", "serial"}));
}

TEST(Lockstep, AVariableSetUnderAGuardItIsNotDeclaredUnderIsNotUniform) {
  Coarsened c(R"(__global__ void g(const int *in, int *out, int n) {
  __shared__ int cell[128];
  int s = 0;
  if (threadIdx.x < n) {
    s = 5;
    cell[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
  }
  out[threadIdx.x] = s + cell[0];
})",
              128, 1);
  auto out = c.apply({{"factor", "2"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_NE(out->source.find("int __kbcc_s_0[2];"), std::string::npos) << out->source;
  EXPECT_NE(out->source.find("if (__syncthreads_and(__kbcc_on0[0] && __kbcc_on0[1])) {"), std::string::npos)
      << out->source;
}

TEST(Lockstep, AGuardThatDeclaresSharedMemoryIsWrittenOnce) {
  Coarsened c(R"(__global__ void g(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __shared__ int cell[128];
    cell[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = cell[127 - threadIdx.x];
  }
})",
              128, 1);
  auto out = c.apply({{"factor", "2"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(out->source.find("__syncthreads_and"), std::string::npos) << out->source;
  EXPECT_NE(out->source.find("if (__kbcc_on0[__kbcc_vk]) {"), std::string::npos) << out->source;
}

TEST(Lockstep, AReturnOfTheWholeBlockStaysOneUnlessAGuardHoldsIt) {
  Coarsened top(R"(__global__ void t(const int *in, int *out, int rows) {
  __shared__ int cell[128];
  if (blockIdx.x >= rows) return;
  cell[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 128 + threadIdx.x] = cell[127 - threadIdx.x];
})",
                128, 1);
  auto out = top.apply({{"factor", "2"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_NE(out->source.find("  if (blockIdx.x >= rows) return;\n"), std::string::npos) << out->source;
  EXPECT_EQ(out->source.find("__syncthreads_and"), std::string::npos) << out->source;
  // Under a guard, the threads that skip it would go on past the return.
  EXPECT_NE(refusal(R"(__global__ void g(const int *in, int *out, int rows) {
  __shared__ int cell[128];
  if (threadIdx.x < 100) {
    if (blockIdx.x >= rows) return;
    cell[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
  }
  out[threadIdx.x] = cell[0];
})")
                .find("a thread may return before a barrier"),
            std::string::npos);
}

TEST(Lockstep, LaunchBoundsShrinkWithTheBlock) {
  Coarsened c(R"(#define THREADS 256
__global__ void __launch_bounds__(THREADS, 2) lb(const float *in, float *out) {
  __shared__ float cell[THREADS];
  cell[threadIdx.x] = in[blockIdx.x * THREADS + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * THREADS + threadIdx.x] = cell[THREADS - 1 - threadIdx.x];
})",
              256, 1);
  auto out = c.apply({{"factor", "8"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_NE(out->source.find("__global__ void __launch_bounds__(32, 2) lb("), std::string::npos) << out->source;
}

TEST(Lockstep, RefusesWhatReliesOnWarpsOrCannotBeFollowed) {
  EXPECT_NE(refusal(R"(__global__ void v(int *out) {
  __shared__ volatile int cell[128];
  cell[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = cell[threadIdx.x ^ 1];
})")
                .find("through volatile"),
            std::string::npos);
  EXPECT_NE(refusal(R"(__global__ void g(int *out) {
  __shared__ int cell[128];
  cell[threadIdx.x] = 1;
  if (out[0]) goto done;
  __syncthreads();
done:
  out[threadIdx.x] = cell[0];
})")
                .find("uses goto"),
            std::string::npos);
  EXPECT_NE(refusal(R"(__device__ int lane() { return threadIdx.x % 32; }
__global__ void h(int *out) {
  __shared__ int cell[128];
  cell[threadIdx.x] = lane();
  __syncthreads();
  out[threadIdx.x] = cell[0];
})")
                .find("`lane`, which the kernel calls, reads threadIdx or blockDim"),
            std::string::npos);
  EXPECT_NE(refusal(R"(__global__ void l(const float *in, float *out) {
  __shared__ float cell[128];
  float acc[2] = {0.0f, 0.0f};
  cell[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  acc[threadIdx.x % 2] += cell[0];
  out[threadIdx.x] = acc[0] + acc[1];
})")
                .find("`acc` carries a value across a barrier and is initialised other than by `= value`"),
            std::string::npos);
  // A kernel that neither synchronizes nor uses shared memory is the index space's.
  EXPECT_EQ(refusal(R"(__global__ void plain(const float *in, float *out) {
  out[threadIdx.x] = in[threadIdx.x];
})")
                .find("across barriers"),
            std::string::npos);
}
