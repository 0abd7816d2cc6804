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

TEST(KernelText, ExplicitSpecializationsNameTheirInstance) {
  const std::string spec = "/* one instance */ template <> __global__ void __launch_bounds__(128) "
                           "scale<decltype((unsigned char)0), ((long)4ll)>(int n) {}";
  auto k = parse_kernel_text(spec);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->name, "scale");
  EXPECT_TRUE(k->has_launch_bounds);
  EXPECT_EQ(spec.substr(k->name_pos, k->name_end - k->name_pos), "scale<decltype((unsigned char)0), ((long)4ll)>");
  EXPECT_EQ(spec[k->params_open], '(');
  auto plain = parse_kernel_text(kSaxpy);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->name_end, plain->name_pos + 5);
  EXPECT_TRUE(is_explicit_specialization(spec));
  EXPECT_FALSE(is_explicit_specialization(kTemplated));
  EXPECT_FALSE(is_explicit_specialization(kSaxpy));
}

TEST(KernelText, QualifiedNamesSplitOutsideTemplateArguments) {
  EXPECT_EQ(split_qualified("ns::inner::k<ns::V, 2>"),
            std::make_pair(std::string("ns::inner::"), std::string("k<ns::V, 2>")));
  EXPECT_EQ(split_qualified("k<a::b>"), std::make_pair(std::string(), std::string("k<a::b>")));
  EXPECT_EQ(split_qualified("rows"), std::make_pair(std::string(), std::string("rows")));
}
