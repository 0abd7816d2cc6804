#include "tooling/rewrite.h"

#include <gtest/gtest.h>

using namespace kbcc::tooling;

namespace {

const std::string kUnit = "int host() { return 1; }\n"    // line 1
                          "__global__ void k(int *p) {\n" // line 2
                          "  p[0] = 1;\n"                 // line 3
                          "}\n"                           // line 4
                          "int after() { return 2; }\n";  // line 5

Substitution sub_for_k(std::vector<ArchVariant> variants) {
  uint64_t begin = kUnit.find("__global__");
  uint64_t end = kUnit.find("}\n", begin) + 1;
  return {begin, end, std::move(variants)};
}

} // namespace

TEST(Rewrite, NoSubstitutionKeepsTextAfterLineDirective) {
  auto out = rewrite_unit(kUnit, "/src/a.cu", UnitEdits{});
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, "#line 1 \"/src/a.cu\"\n" + kUnit);
}

TEST(Rewrite, VariantsUnderArchChainWithOriginalInElse) {
  auto out = rewrite_unit(kUnit, "/src/a.cu",
                          {sub_for_k({{900, "v90", "__global__ void k(int *p) { p[0] = 90; }"},
                                      {800, "v80", "__global__ void k(int *p) { p[0] = 80; }\n"}})});
  ASSERT_TRUE(out);
  const std::string expected = "#line 1 \"/src/a.cu\"\n"
                               "int host() { return 1; }\n"
                               "\n"
                               "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 800\n"
                               "#pragma nv_diagnostic push\n"
                               "#pragma nv_diag_suppress 177, 550\n"
                               "#line 1 \"v80\"\n"
                               "__global__ void k(int *p) { p[0] = 80; }\n"
                               "#pragma nv_diagnostic pop\n"
                               "#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900\n"
                               "#pragma nv_diagnostic push\n"
                               "#pragma nv_diag_suppress 177, 550\n"
                               "#line 1 \"v90\"\n"
                               "__global__ void k(int *p) { p[0] = 90; }\n"
                               "#pragma nv_diagnostic pop\n"
                               "#else\n"
                               "#line 2 \"/src/a.cu\"\n"
                               "__global__ void k(int *p) {\n"
                               "  p[0] = 1;\n"
                               "}\n"
                               "#endif\n"
                               "#line 4 \"/src/a.cu\"\n"
                               "\n"
                               "int after() { return 2; }\n";
  EXPECT_EQ(*out, expected);
}

TEST(Rewrite, SpecializationsGoAfterTheTemplateWithoutElse) {
  uint64_t after_k = kUnit.find("}\n", kUnit.find("__global__")) + 1;
  Substitution s{after_k, after_k, {{900, "v90", "template <> __global__ void k<int>(int *p) {}"}}, true};
  auto out = rewrite_unit(kUnit, "/src/a.cu", {s});
  ASSERT_TRUE(out);
  const std::string expected = "#line 1 \"/src/a.cu\"\n"
                               "int host() { return 1; }\n"
                               "__global__ void k(int *p) {\n"
                               "  p[0] = 1;\n"
                               "}\n"
                               "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900\n"
                               "#pragma nv_diagnostic push\n"
                               "#pragma nv_diag_suppress 177, 550\n"
                               "#line 1 \"v90\"\n"
                               "template <> __global__ void k<int>(int *p) {}\n"
                               "#pragma nv_diagnostic pop\n"
                               "#endif\n"
                               "#line 4 \"/src/a.cu\"\n"
                               "\n"
                               "int after() { return 2; }\n";
  EXPECT_EQ(*out, expected);
  s.begin = 0;
  EXPECT_FALSE(rewrite_unit(kUnit, "/src/a.cu", {s})) << "a specialization replaces no text";
}

TEST(Rewrite, SeveralKernelsInAnyOrder) {
  std::string unit = "__global__ void a() {}\n__global__ void b() {}\n";
  Substitution sa{0, 22, {{800, "va", "__global__ void a() { /*A*/ }"}}};
  Substitution sb{23, 45, {{800, "vb", "__global__ void b() { /*B*/ }"}}};
  auto out = rewrite_unit(unit, "u.cu", {sb, sa});
  ASSERT_TRUE(out);
  EXPECT_LT(out->find("/*A*/"), out->find("/*B*/"));
  EXPECT_NE(out->find("#line 2 \"u.cu\"\n__global__ void b() {}"), std::string::npos);
}

TEST(Rewrite, PathIsEscapedInLineDirectives) {
  auto out = rewrite_unit("x", "/a \"q\"\\b.cu", UnitEdits{});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->substr(0, 24), "#line 1 \"/a \\\"q\\\"\\\\b.cu\"");
}

TEST(Rewrite, RejectsOverlapsRangesAndDuplicateArchs) {
  EXPECT_FALSE(
      rewrite_unit(kUnit, "a.cu", {Substitution{0, 10, {{800, "", "x"}}}, Substitution{5, 12, {{800, "", "y"}}}}));
  EXPECT_FALSE(rewrite_unit(kUnit, "a.cu", {Substitution{0, 10000, {{800, "", "x"}}}}));
  EXPECT_FALSE(rewrite_unit(kUnit, "a.cu", {sub_for_k({{800, "", "x"}, {800, "", "y"}})}));
  EXPECT_FALSE(rewrite_unit(kUnit, "a.cu", {sub_for_k({})}));
}
