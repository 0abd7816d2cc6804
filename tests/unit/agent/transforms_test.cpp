#include "agent/lowering.h"
#include "agent/transforms.h"
#include "test_support.h"

#include <gtest/gtest.h>

using namespace kbcc::agent;

namespace {
TransformContext ctx(unsigned block = 256) {
  TransformContext c;
  LaunchConfig l;
  l.block[0] = block;
  c.launches = {l};
  return c;
}
std::string run_transform(const char *id, const std::string &src, const TransformContext &c = ctx()) {
  auto r = find_transform(id)->apply(src, c);
  return r ? *r : "ERROR(" + r.error().code + "): " + r.error().message;
}
const char *kTemplated = R"(template <typename T>
__global__ void scale(T *out, const T *in, /* factor, as in "x" */ T f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * f;  // expf( in a comment
})";
const char *kMath = R"(__global__ void act(float *y, const float *x, int n) {
  int i = threadIdx.x;
  y[i] = expf(x[i]) + sinf(x[i]) + my_expf(x[i]) + __expf(x[i]) + powf(x[i], 2.0f);
})";
} // namespace

TEST(Transforms, EveryKbMechanicalIdExists) {
  for (const char *id : {"launch_bounds", "maxnreg", "unroll", "restrict_ldg", "fast_math", "block_size"})
    EXPECT_NE(find_transform(id), nullptr) << id;
}

TEST(Transforms, LaunchBoundsUsesLargestCapturedBlock) {
  TransformContext c = ctx(128);
  LaunchConfig big;
  big.block[0] = 32;
  big.block[1] = 8;
  c.launches.push_back(big);
  std::string out = run_transform("launch_bounds", test::kSaxpy, c);
  EXPECT_NE(out.find("__global__ void __launch_bounds__(256) saxpy("), std::string::npos) << out;
  EXPECT_EQ(run_transform("launch_bounds", out, c).rfind("ERROR(not-applicable)", 0), 0u);
  EXPECT_EQ(run_transform("launch_bounds", test::kSaxpy, TransformContext{}).rfind("ERROR(not-applicable)", 0), 0u);
}

TEST(Transforms, MaxnregFromProfile) {
  TransformContext c;
  c.metrics["registers_per_thread"] = 96;
  std::string out = run_transform("maxnreg", test::kSaxpy, c);
  EXPECT_NE(out.find("__maxnreg__(72) saxpy("), std::string::npos) << out;
  c.metrics["registers_per_thread"] = 24;
  EXPECT_EQ(run_transform("maxnreg", test::kSaxpy, c).rfind("ERROR(not-applicable)", 0), 0u);
}

TEST(Transforms, UnrollInnermostLoopsOnly) {
  const char *nested = R"(__global__ void mm(float *c, const float *a, const float *b, int n) {
  for (int i = 0; i < n; ++i) {
    float acc = 0;
    for (int k = 0; k < n; ++k) acc += a[i * n + k] * b[k];
    c[i] = acc;
  }
})";
  TransformContext c;
  c.params["factor"] = "8";
  std::string out = run_transform("unroll", nested, c);
  EXPECT_EQ(out.find("#pragma unroll 8"), out.rfind("#pragma unroll 8")) << out; // exactly one
  EXPECT_LT(out.find("#pragma unroll 8"), out.find("for (int k"));
  EXPECT_GT(out.find("#pragma unroll 8"), out.find("for (int i"));
  EXPECT_EQ(run_transform("unroll", out, c).rfind("ERROR(not-applicable)", 0), 0u); // already has a pragma
}

TEST(Transforms, RestrictOnlyOnConstPointers) {
  std::string out = run_transform("restrict_ldg", kTemplated);
  EXPECT_NE(out.find("const T * __restrict__ in"), std::string::npos) << out;
  EXPECT_NE(out.find("T *out"), std::string::npos) << out;
  EXPECT_EQ(out.find("__restrict__ out"), std::string::npos) << out;
  EXPECT_EQ(run_transform("restrict_ldg", out).rfind("ERROR(not-applicable)", 0), 0u);
}

TEST(Transforms, FastMathRewritesCallsNotLookalikes) {
  std::string out = run_transform("fast_math", kMath);
  EXPECT_NE(out.find("__expf(x[i]) + __sinf(x[i]) + my_expf(x[i]) + __expf(x[i]) + __powf("), std::string::npos) << out;
  EXPECT_EQ(run_transform("fast_math", kTemplated).rfind("ERROR(not-applicable)", 0), 0u); // only in a comment
}

TEST(Transforms, BlockSizeIsNeverMechanical) {
  EXPECT_EQ(run_transform("block_size", test::kSaxpy).rfind("ERROR(not-applicable)", 0), 0u);
  EXPECT_EQ(find_transform("launch_bounds")->safety, Safety::LaunchConfig);
  EXPECT_STREQ(safety_name(find_transform("fast_math")->safety), "numerics");
}

TEST(Transforms, TrajectoriesExploreParameters) {
  KernelTask t;
  t.launches.resize(1);
  Metrics m{{"registers_per_thread", 128}};
  EXPECT_EQ(transform_context(t, m, "unroll", 0).params.at("factor"), "4");
  EXPECT_EQ(transform_context(t, m, "unroll", 1).params.at("factor"), "8");
  EXPECT_EQ(transform_context(t, m, "unroll", 5).params.at("factor"), "8");
  EXPECT_EQ(transform_context(t, m, "launch_bounds", 0).params.count("min_blocks"), 0u);
  EXPECT_EQ(transform_context(t, m, "launch_bounds", 2).params.at("min_blocks"), "4");
  EXPECT_EQ(transform_context(t, m, "maxnreg", 0).params.at("registers"), "96");
  EXPECT_EQ(transform_context(t, m, "maxnreg", 2).params.at("registers"), "64");
  EXPECT_EQ(transform_context(t, {}, "maxnreg", 2).params.count("registers"), 0u);
  std::string out = run_transform("launch_bounds", test::kSaxpy, transform_context(t, m, "launch_bounds", 1));
  EXPECT_NE(out.find("__launch_bounds__(1, 2)"), std::string::npos) << out;
}
