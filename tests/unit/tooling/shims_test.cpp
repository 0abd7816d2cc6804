#include "support/fs.h"
#include "tooling/extract.h"
#include "tooling/shims.h"

#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::tooling;

TEST(Shims, DeclaredFunctionsFollowTheDeclMacro) {
  std::string h = "/* __X_DECL__ int __in_comment(int); */\n"
                  "#if defined(RTC)\n#define __X_DECL__ __device__\n#else\n"
                  "#define __X_DECL__ static __device__\n#endif\n#if defined(__cplusplus)\n"
                  "__X_DECL__ int4 __ldcs(const int4 *ptr) __DEF_IF_HOST\n"
                  "__X_DECL__ float __ldcs(const float *ptr) __DEF_IF_HOST\n"
                  "__X_DECL__ void __stcs(float4 *ptr, float4 value);\n"
                  "__X_DECL__ unsigned __funnelshift_l(unsigned lo,\n    unsigned hi, unsigned s);\n";
  EXPECT_EQ(declared_functions(h, "__X_DECL__"), (std::vector<std::string>{"__ldcs", "__stcs", "__funnelshift_l"}));
}

TEST(Shims, LongDoubleFunctionsTakeOneParameter) {
  std::string h = "__DECL__ bool isfinite(long double x);\n"
                  "__DECL__ bool isnan(long double);\n"
                  "__DECL__ int __finitel(long double x);\n"
                  "__DECL__ int _ldsign(long double);\n"
                  "__DECL__ long double fmal(long double x, long double y, long double z);\n"
                  "__DECL__ bool isfinite(long double a);\n";
  EXPECT_EQ(long_double_functions(h), (std::vector<std::string>{"isfinite", "isnan"}));
}

TEST(Shims, MentionsFunctionNeedsACall) {
  std::string clang = "inline __device__ int __ldg(const int *p) { return __nvvm_ldg_i(p); }\n#define __ldcs_x 1\n";
  EXPECT_TRUE(mentions_function(clang, "__ldg"));
  EXPECT_FALSE(mentions_function(clang, "__ldcs"));
  EXPECT_FALSE(mentions_function(clang, "__nvvm_ldg"));
}

TEST(Shims, ForcedIncludeRenamesOnlyWhatClangDefines) {
  ShimSources s;
  s.sm32_intrinsics = "__SM_32_INTRINSICS_DECL__ int __ldg(const int *p);\n"
                      "__SM_32_INTRINSICS_DECL__ int4 __ldcs(const int4 *p);\n";
  s.math_functions = "__MATH_DECL__ bool isinf(long double x);\n";
  s.clang_headers = "inline __device__ int __ldg(const int *ptr) { return 0; } // __ldcs(\n";
  std::string text = generate_forced_include(s);
  EXPECT_NE(text.find("#define __ldg __kbcc_clang_defines__ldg"), std::string::npos) << text;
  EXPECT_EQ(text.find("#define __ldcs"), std::string::npos) << text;
  EXPECT_NE(text.find("#include <sm_32_intrinsics.h>"), std::string::npos);
  EXPECT_NE(text.find("#undef __SM_32_INTRINSICS_H__"), std::string::npos);
  EXPECT_NE(text.find("bool isinf(long double __x) { return isinf(static_cast<double>(__x)); }"), std::string::npos)
      << text;
  EXPECT_NE(text.find("#include <crt/sm_100_rt.h>"), std::string::npos);
}

TEST(Shims, NoSm32BlockWithoutTheHeader) {
  EXPECT_EQ(generate_forced_include(ShimSources{}).find("sm_32_intrinsics"), std::string::npos);
}

TEST(Shims, EnsureShimsUsesADirectoryPerToolkit) {
  auto dir = make_temp_dir("kbcc-shims-test");
  ASSERT_TRUE(dir);
  auto a = ensure_shims(*dir, KBCC_CUDA_ROOT);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_TRUE(file_exists(*a + "/" + kShimHeader));
  EXPECT_TRUE(file_exists(*a + "/texture_fetch_functions.h"));
  EXPECT_EQ(a->rfind(*dir + "/", 0), 0u);
  auto again = ensure_shims(*dir, KBCC_CUDA_ROOT);
  ASSERT_TRUE(again);
  EXPECT_EQ(*a, *again);
  auto other = ensure_shims(*dir, *dir + "/no-cuda-here");
  ASSERT_TRUE(other);
  EXPECT_NE(*a, *other);
  auto text = read_file(*a + "/" + kShimHeader);
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("sm_32_intrinsics.h"), std::string::npos) << "generated from " KBCC_CUDA_ROOT;
  remove_all(*dir);
}

TEST(Diagnostics, FormatLikeACompiler) {
  ParseDiagnostic d{"a.cu", 3, 7, false, false, "use of undeclared identifier 'x'"};
  EXPECT_EQ(format_diagnostic(d), "a.cu:3:7: error: use of undeclared identifier 'x'");
  ParseDiagnostic f{"a.cu", 1, 10, true, false, "'omp.h' file not found"};
  EXPECT_EQ(format_diagnostics({d, f}, 1), "a.cu:1:10: fatal error: 'omp.h' file not found; (1 more)");
  EXPECT_EQ(format_diagnostic(ParseDiagnostic{"", 0, 0, false, false, "too many errors"}), "error: too many errors");
}
