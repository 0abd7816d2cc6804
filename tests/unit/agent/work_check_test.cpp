#include "tooling/kernel_text.h"
#include "agent/transforms.h"
#include "agent/work_check.h"
#include "support/fs.h"
#include "test_support.h"

#include <gtest/gtest.h>

using namespace kbcc::agent;

TEST(WorkCheck, AcceptsEquivalentRewrite) {
  std::string cand = R"(__global__ void saxpy(int n, float a, const float * __restrict__ x, float *y) {
  int stride = blockDim.x * gridDim.x;
  #pragma unroll 4
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = fmaf(a, x[i], y[i]);
})";
  EXPECT_TRUE(check_candidate(test::kSaxpy, cand));
}

TEST(WorkCheck, RejectsUnwrittenOutput) {
  std::string cand = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) { float v = x[i] * a; (void)v; }
})";
  auto st = check_candidate(test::kSaxpy, cand);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "removed-work");
}

TEST(WorkCheck, RejectsDroppedLoop) {
  std::string cand = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = threadIdx.x;
  y[i] = a * x[i] + y[i];
})";
  auto st = check_candidate(test::kSaxpy, cand);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "removed-work");
  EXPECT_NE(st.error().message.find("'n'"), std::string::npos);
}

TEST(WorkCheck, RejectsSignatureChanges) {
  auto st = check_candidate(test::kSaxpy, "__global__ void saxpy(int n, double a, const float *x, float *y) {}");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "signature-changed");
  st = check_candidate(test::kSaxpy, "__global__ void saxpy2(int n, float a, const float *x, float *y) {}");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, "signature-changed");
}

TEST(WorkCheck, WritesThroughForms) {
  EXPECT_TRUE(writes_through("{ out[i] += 1; }", "out"));
  EXPECT_TRUE(writes_through("{ *out = 1; }", "out"));
  EXPECT_TRUE(writes_through("{ atomicAdd(&out[0], 1); }", "out"));
  EXPECT_TRUE(writes_through("{ out[i]++; }", "out"));
  EXPECT_FALSE(writes_through("{ v = out[i] == 1; }", "out"));
  EXPECT_FALSE(writes_through("{ // out[i] = 1;\n }", "out"));
}

TEST(WorkCheck, MechanicalTransformsOfTheExampleKernelsPass) {
  // Every transform that applies to the example app's kernels keeps the
  // contract the static check enforces (no false "removed work").
  for (const char *file : {"saxpy.cu", "matmul.cu", "reduce.cu"}) {
    auto text = kbcc::read_file(std::string(KBCC_SOURCE_DIR) + "/examples/src/" + file);
    ASSERT_TRUE(text) << file;
    auto k = kbcc::tooling::parse_kernel_text(*text);
    ASSERT_TRUE(k) << file;
    std::string kernel = text->substr(k->global_pos, k->body_close + 1 - k->global_pos);
    TransformContext ctx;
    ctx.launches.resize(1);
    ctx.launches[0].block[0] = 256;
    ctx.metrics["registers_per_thread"] = 40;
    int applied = 0;
    for (const Transform &t : transforms()) {
      auto out = t.apply(kernel, ctx);
      if (!out) {
        EXPECT_EQ(out.error().code, "not-applicable") << file << " " << t.id;
        continue;
      }
      ++applied;
      auto st = check_candidate(kernel, *out);
      EXPECT_TRUE(st) << file << " " << t.id << ": " << (st ? "" : st.error().message);
    }
    EXPECT_GE(applied, 2) << file;
  }
}
