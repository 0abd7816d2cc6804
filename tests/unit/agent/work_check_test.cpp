#include "agent/work_check.h"
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
