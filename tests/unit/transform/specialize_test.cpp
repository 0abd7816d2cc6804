// Template instances written out as explicit specializations: which
// arguments stand where the parameters were read, and which templates
// cannot be written out.
#include "transform/specialize.h"

#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::transform;

namespace {

const char *kUnit = R"(namespace geo {
enum class Axis { X = 1, Y = 2 };
struct Vec { float a, b; };
}
template <typename T, typename U, int N, unsigned M, bool B, geo::Axis A, long L>
__global__ void k(const T *x, U *y) {
  if (B && A == geo::Axis::Y) y[threadIdx.x] = U(x[threadIdx.x].a * N + M + L);
}
void run(const geo::Vec *x, unsigned char *y) {
  k<geo::Vec, unsigned char, -3, 7u, true, geo::Axis::Y, 5000000000L><<<1, 32>>>(x, y);
}
)";

Expected<Specialization> specialize(const std::string &unit, const std::string &instance) {
  tooling::ParseRequest r;
  r.source = "/virtual/t.cu";
  r.arch = "sm_90";
  return specialize_kernel(r, unit, instance);
}

} // namespace

TEST(Specialize, EveryParameterReadBecomesItsArgument) {
  auto s = specialize(kUnit, "k<geo::Vec, unsigned char, -3, 7U, true, geo::Axis::Y, 5000000000L>");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(
      s->text,
      "template <> __global__ void k<::geo::Vec, decltype((unsigned char)0), (-3), ((unsigned)7ull), true, "
      "((::geo::Axis)2ll), ((long)5000000000ll)>(const ::geo::Vec *x, decltype((unsigned char)0) *y) {\n"
      "  if (true && ((::geo::Axis)2ll) == geo::Axis::Y) y[threadIdx.x] = decltype((unsigned char)0)(x[threadIdx.x].a "
      "* (-3) + ((unsigned)7ull) + ((long)5000000000ll));\n}");
  EXPECT_EQ(std::string(kUnit).substr(s->template_end, 2), "\nv");
}

TEST(Specialize, TheInstanceMustBeInstantiatedAndItsTemplateWrittenOut) {
  auto none = specialize(kUnit, "k<int>");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no such instantiation"), std::string::npos);
  EXPECT_EQ(none.error().code, "not-applicable");
  EXPECT_FALSE(is_instance_name("k"));
  EXPECT_TRUE(is_instance_name("ns::k<float>"));
}
