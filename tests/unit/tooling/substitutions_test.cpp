#include "support/fs.h"
#include "tooling/substitutions.h"

#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::tooling;

namespace {

const std::string kUnit = real_path(std::string(KBCC_TOOLING_INPUTS) + "/basic.cu");

Kernel kernel(const std::string &hash, uint64_t begin, uint64_t end, bool is_template = false) {
  Kernel k;
  k.hash = hash;
  k.file = kUnit;
  k.begin = begin, k.end = end;
  k.is_template = is_template;
  return k;
}

Extraction extraction(const std::string &arch, std::vector<Kernel> kernels) {
  Extraction x;
  x.source_path = kUnit;
  x.arch = arch;
  x.kernels = std::move(kernels);
  return x;
}

} // namespace

TEST(PlanSubstitutions, OneRangeWithEveryArchInOrder) {
  std::vector<Extraction> per_arch = {extraction("sm_80", {kernel("a80", 10, 50)}),
                                      extraction("sm_90", {kernel("a90", 10, 50)})};
  std::vector<std::string> skipped;
  auto subs =
      plan_substitutions(kUnit, per_arch, {{"a90", "sm_90", "v90", "S90"}, {"a80", "sm_80", "v80", "S80"}}, &skipped);
  ASSERT_EQ(subs.size(), 1u);
  EXPECT_EQ(subs[0].begin, 10u);
  EXPECT_EQ(subs[0].end, 50u);
  ASSERT_EQ(subs[0].variants.size(), 2u);
  EXPECT_EQ(subs[0].variants[0].arch, 800);
  EXPECT_EQ(subs[0].variants[0].source, "S80");
  EXPECT_EQ(subs[0].variants[1].name, "v90");
  EXPECT_TRUE(skipped.empty());
}

TEST(PlanSubstitutions, HeaderUnknownAndNotOptimizableKernelsAreSkippedWithReasons) {
  Kernel header = kernel("h", 0, 5);
  header.in_main_file = false;
  header.file = "/elsewhere/k.h";
  Kernel macro = kernel("m", 60, 70);
  macro.not_optimizable = "macro-generated";
  std::vector<Extraction> per_arch = {extraction("sm_80", {header, macro})};
  std::vector<std::string> skipped;
  auto subs = plan_substitutions(
      kUnit, per_arch,
      {{"h", "sm_80", "", "x"}, {"m", "sm_80", "", "y"}, {"nope", "sm_80", "", "z"}, {"h", "sm_90", "", "w"}},
      &skipped);
  EXPECT_TRUE(subs.empty());
  EXPECT_EQ(skipped, (std::vector<std::string>{"kernel-in-header", "macro-generated", "kernel-not-in-unit",
                                               "kernel-not-in-unit"}));
}

TEST(PlanSubstitutions, TemplateOnlyWhenEveryInstantiationAgrees) {
  std::vector<Extraction> per_arch = {extraction("sm_80", {kernel("f", 100, 200, true), kernel("i", 100, 200, true)})};
  std::vector<std::string> skipped;
  EXPECT_TRUE(plan_substitutions(kUnit, per_arch, {{"f", "sm_80", "", "T"}}, &skipped).empty());
  EXPECT_EQ(skipped, std::vector<std::string>{"template-instantiations-disagree"});
  EXPECT_TRUE(plan_substitutions(kUnit, per_arch, {{"f", "sm_80", "", "T"}, {"i", "sm_80", "", "U"}}).empty());
  auto subs = plan_substitutions(kUnit, per_arch, {{"f", "sm_80", "", "T"}, {"i", "sm_80", "", "T"}});
  ASSERT_EQ(subs.size(), 1u);
  ASSERT_EQ(subs[0].variants.size(), 1u);
  EXPECT_EQ(subs[0].variants[0].source, "T");
}
