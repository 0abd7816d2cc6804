// Planning launch-changing variants: what is inserted, which sites change,
// and why the others do not.
#include "support/fs.h"
#include "tooling/launch_plan.h"

#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::tooling;

namespace {

const std::string kUnit = real_path(std::string(KBCC_TOOLING_INPUTS) + "/basic.cu");

LaunchSite site(uint64_t begin, uint64_t end, uint64_t close, const char *form = kLaunchChevron) {
  LaunchSite s;
  s.form = form;
  s.edit_begin = begin, s.edit_end = end;
  if (close) s.close_begin = close, s.close_end = close + 3;
  return s;
}

Kernel kernel(const std::string &hash) {
  Kernel k;
  k.hash = hash;
  k.qualified_name = "ns::rows";
  k.file = kUnit;
  k.begin = 100, k.end = 200;
  Param n;
  n.name = "n", n.is_integer = n.is_signed = true, n.size = 4;
  Param x;
  x.name = "x", x.is_pointer = true, x.size = 8;
  k.params = {n, x};
  k.launches = {site(50, 58, 70), site(300, 308, 320), site(400, 416, 0, kLaunchKernel)};
  k.launches[0].not_rewritable = "launch-before-definition";
  LaunchSite macro;
  macro.form = kLaunchChevron;
  macro.not_rewritable = "launch-in-macro";
  k.launches.push_back(macro);
  return k;
}

VariantChoice choice(const std::string &hash, const std::string &arch) {
  VariantChoice c{hash, arch, "kbcc-variant-0123456789abcdef", "__global__ void rows(int n, const float *x) {}", {}};
  launch::LaunchMapping m;
  m.grid = {"ceil_div(grid.x * block.x, 8)", "1", "1"};
  m.block = {"256", "1", "1"};
  m.preconditions = {"n <= grid.x * block.x", "aligned(x, 16)"};
  c.launch = m;
  return c;
}

Extraction extraction(const std::string &arch, const Kernel &k) {
  Extraction x;
  x.source_path = kUnit;
  x.arch = arch;
  x.kernels = {k};
  return x;
}

} // namespace

TEST(LaunchPlan, InsertsVariantsAndAdapterAndRoutesLaterSites) {
  std::vector<Extraction> per_arch = {extraction("sm_80", kernel("h80")), extraction("sm_90", kernel("h90"))};
  LaunchPlan plan = plan_launch_variants(kUnit, per_arch, {choice("h90", "sm_90")});
  EXPECT_TRUE(plan.skipped.empty());
  EXPECT_EQ(plan.sites_rewritten, 2u);
  EXPECT_EQ(plan.sites_kept, (std::vector<std::string>{"launch-before-definition", "launch-in-macro"}));
  ASSERT_EQ(plan.edits.insertions.size(), 2u);
  const Insertion &after = plan.edits.insertions[0];
  EXPECT_EQ(after.at, 200u);
  EXPECT_NE(after.text.find(
                "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900\nnamespace {\nnamespace __kbcc_sm_90_89abcdef {"),
            std::string::npos)
      << after.text;
  EXPECT_NE(after.text.find("__global__ void rows__kbcc_sm_90(int n, const float *x)"), std::string::npos);
  EXPECT_NE(after.text.find("struct __kbcc_launch_rows_100 {"), std::string::npos);
  EXPECT_NE(after.text.find("#line 1 \"kbcc-variant-0123456789abcdef-adapter\""), std::string::npos);
  EXPECT_EQ(plan.edits.insertions[1].at, 0u);
  ASSERT_EQ(plan.edits.replacements.size(), 3u);
  EXPECT_EQ(plan.edits.replacements[0].text, "::ns::__kbcc_launch_rows_100(");
  EXPECT_EQ(plan.edits.replacements[1].text, ")");
  EXPECT_EQ(plan.edits.replacements[2].text, "::ns::__kbcc_launch_rows_100::launch_kernel");
  EXPECT_EQ(plan.kernels, std::vector<std::string>{"ns::rows"});
}

TEST(LaunchPlan, KernelsThatCannotTakeAnAdapterAreSkippedWithReasons) {
  Kernel t = kernel("t");
  t.not_adaptable = "template-kernel";
  Kernel none = kernel("n");
  none.launches = {site(50, 58, 70)};
  none.launches[0].not_rewritable = "launch-in-header";
  std::vector<Extraction> per_arch = {extraction("sm_90", t), extraction("sm_80", none)};
  VariantChoice renamed = choice("t", "sm_90");
  LaunchPlan plan = plan_launch_variants(kUnit, per_arch, {renamed, choice("n", "sm_80"), choice("zz", "sm_90")});
  EXPECT_EQ(plan.skipped,
            (std::vector<std::string>{"template-kernel", "kernel-not-in-unit", "no-rewritable-launch-site"}));
  EXPECT_TRUE(plan.edits.insertions.empty());
  EXPECT_TRUE(plan.edits.replacements.empty());
}

TEST(LaunchPlan, EachTemplateInstanceGetsAPlainVariantAndAnAdapterOfItsOwn) {
  auto instance = [](const std::string &hash, const std::string &type) {
    Kernel k = kernel(hash);
    k.qualified_name = "ns::rows<" + type + ">";
    k.is_template = true;
    return k;
  };
  std::vector<Extraction> per_arch = {extraction("sm_90", instance("f0123456789", "float"))};
  per_arch[0].kernels.push_back(instance("d0123456789", "double"));
  VariantChoice f = choice("f0123456789", "sm_90"), d = choice("d0123456789", "sm_90"), text = f;
  f.source = "template <> __global__ void rows<float>(int n, const float *x) {}";
  d.source = "template<> __global__ void rows<double>(int n, const float *x) {}";
  d.name = "kbcc-variant-fedcba9876543210";
  LaunchPlan plan = plan_launch_variants(kUnit, per_arch, {f, d, text});
  EXPECT_EQ(plan.skipped, std::vector<std::string>{"template-variant-not-specialized"});
  EXPECT_EQ(plan.kernels, (std::vector<std::string>{"ns::rows<double>", "ns::rows<float>"}));
  ASSERT_EQ(plan.edits.insertions.size(), 3u);
  std::string all = plan.edits.insertions[0].text + plan.edits.insertions[1].text;
  EXPECT_NE(all.find("namespace __kbcc_sm_90_89abcdef {\n#pragma nv_diagnostic push\n#pragma nv_diag_suppress 177, "
                     "550\n#line 1 \"kbcc-variant-0123456789abcdef\"\n __global__ void rows__kbcc_sm_90(int n, const "
                     "float *x) {}\n#pragma nv_diagnostic pop\n}"),
            std::string::npos)
      << all;
  EXPECT_EQ(all.find("template <>"), std::string::npos);
  EXPECT_EQ(all.find("template<>"), std::string::npos);
  EXPECT_NE(all.find("struct __kbcc_launch_rows_100_f0123456 {"), std::string::npos);
  EXPECT_NE(all.find("struct __kbcc_launch_rows_100_d0123456 {"), std::string::npos);
  EXPECT_NE(all.find("decltype(&rows<float>)"), std::string::npos);
  EXPECT_EQ(adapter_name(per_arch[0].kernels[1]), "::ns::__kbcc_launch_rows_100_d0123456");
}

// Launch sites name a kernel of an anonymous namespace through the
// enclosing namespace, and so name its adapter.
TEST(LaunchPlan, AnAdapterInAnAnonymousNamespaceIsNamedThroughTheEnclosingOne) {
  Kernel k = kernel("a0123456789");
  k.qualified_name = "lib::(anonymous namespace)::rows";
  EXPECT_EQ(adapter_name(k), "::lib::__kbcc_launch_rows_100");
  k.qualified_name = "(anonymous namespace)::rows";
  EXPECT_EQ(adapter_name(k), "::__kbcc_launch_rows_100");
}

TEST(LaunchPlan, AVariantWhoseKernelHasAnotherNameIsRefused) {
  std::vector<Extraction> per_arch = {extraction("sm_90", kernel("h90"))};
  VariantChoice c = choice("h90", "sm_90");
  c.source = "__global__ void other(int n, const float *x) {}";
  LaunchPlan plan = plan_launch_variants(kUnit, per_arch, {c});
  EXPECT_EQ(plan.skipped, std::vector<std::string>{"variant-name-mismatch"});
}

TEST(LaunchPlan, ChoicesWithoutMappingAreNotItsBusiness) {
  std::vector<Extraction> per_arch = {extraction("sm_90", kernel("h90"))};
  VariantChoice c = choice("h90", "sm_90");
  c.launch.reset();
  LaunchPlan plan = plan_launch_variants(kUnit, per_arch, {c});
  EXPECT_TRUE(plan.skipped.empty());
  EXPECT_TRUE(plan.edits.insertions.empty());
}
