// Lexical helpers over one kernel definition's text.
#include "tooling/kernel_text.h"

#include <gtest/gtest.h>

using namespace kbcc::tooling;

namespace {
const char *kTemplated = R"(template <typename T>
__global__ void scale(T *out, const T *in, /* factor, as in "x" */ T f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * f;  // expf( in a comment
})";
const char *kSaxpy = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
})";
} // namespace

TEST(KernelText, FindsNameParamsAndBody) {
  auto k = parse_kernel_text(kTemplated);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->name, "scale");
  auto params = split_params(kTemplated, *k);
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(param_name(params[1]), "in");
  EXPECT_EQ(param_name(params[2]), "f");
  EXPECT_EQ(param_signature("const float * __restrict__ x"), param_signature("const float *x"));
  EXPECT_NE(param_signature("const float *x"), param_signature("float *x"));
}

TEST(KernelText, FindsLoops) {
  auto k = parse_kernel_text(kSaxpy);
  ASSERT_TRUE(k);
  auto loops = find_loops(kSaxpy, *k);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].keyword, "for");
  EXPECT_NE(loops[0].header.find("i < n"), std::string::npos);
}

