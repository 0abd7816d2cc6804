#include "gpu/analysis.h"
#include "support/fs.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

using namespace kbcc::gpu;

TEST(Cubin, KernelsAndGlobals) {
#ifndef KBCC_GPU_TEST_CUBIN
  GTEST_SKIP() << "nvcc not found at configure time";
#else
  auto elf = kbcc::read_file(KBCC_GPU_TEST_CUBIN);
  ASSERT_TRUE(elf) << elf.error().message;
  auto info = inspect_cubin(*elf);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->sm, 90u);
  auto has = [&](const std::string &k) {
    return std::find(info->kernels.begin(), info->kernels.end(), k) != info->kernels.end();
  };
  EXPECT_TRUE(has("_Z12uses_globalsPf"));
  EXPECT_TRUE(has("_Z5scaleIfEv4PairT_"));
  EXPECT_EQ(info->kernels.size(), 2u); // the __noinline__ device function is not an entry
  ASSERT_EQ(info->globals.size(), 2u);
  for (const auto &g : info->globals) {
    if (g.name == "coeffs") {
      EXPECT_EQ(g.size, 64u);
      EXPECT_EQ(g.section, ".nv.constant3");
    } else {
      EXPECT_EQ(g.name, "launches");
      EXPECT_EQ(g.size, 4u);
    }
  }
#endif
}

TEST(Cubin, RejectsNonElf) {
  EXPECT_FALSE(inspect_cubin("//\n.version 8.0\n.target sm_90\n"));
  EXPECT_FALSE(inspect_cubin(std::string("\x7f"
                                         "ELF\x02",
                                         5)));
}

// Inputs/module_globals.cu, one cubin per instruction-set generation.
class KernelGlobals : public ::testing::TestWithParam<int> {
protected:
  std::set<std::string> uses(const std::string &kernel) {
#ifdef KBCC_GPU_TEST_CUBIN_DIR
    auto elf = kbcc::read_file(std::string(KBCC_GPU_TEST_CUBIN_DIR) + "/module_globals_sm" +
                               std::to_string(GetParam()) + ".cubin");
    EXPECT_TRUE(elf) << elf.error().message;
    if (!elf) return {};
    auto used = globals_kernel_may_use(*elf, kernel);
    EXPECT_TRUE(used) << used.error().message;
    return used ? *used : std::set<std::string>{};
#else
    (void)kernel;
    return {};
#endif
  }
  void SetUp() override {
#ifndef KBCC_GPU_TEST_CUBIN_DIR
    GTEST_SKIP() << "nvcc not found at configure time";
#endif
  }
};

TEST_P(KernelGlobals, DirectGlobalAndNotOtherKernelsData) {
  auto u = uses("_Z10uses_tablePf");
  EXPECT_TRUE(u.count("table"));
  EXPECT_FALSE(u.count("other_data"));
  EXPECT_FALSE(u.count("coef"));
  auto o = uses("_Z12other_kernelPd");
  EXPECT_TRUE(o.count("other_data"));
  EXPECT_FALSE(o.count("table"));
}

TEST_P(KernelGlobals, ThroughAPointersInitialiser) {
  auto u = uses("_Z13uses_indirectv");
  EXPECT_TRUE(u.count("indirect"));
  EXPECT_TRUE(u.count("counter")); // only reachable through indirect's initial value
}

TEST_P(KernelGlobals, ConstantBankAndStringLiterals) {
  EXPECT_TRUE(uses("_Z13uses_constantPf").count("coef"));
  EXPECT_FALSE(uses("_Z13uses_constantPf").count("other_data"));
  EXPECT_TRUE(uses("_Z6printsi").count("$str"));
}

TEST_P(KernelGlobals, KernelWithoutGlobals) { EXPECT_TRUE(uses("_Z5plainPf").empty()); }

TEST_P(KernelGlobals, UnknownKernelIsAnError) {
#ifdef KBCC_GPU_TEST_CUBIN_DIR
  auto elf = kbcc::read_file(std::string(KBCC_GPU_TEST_CUBIN_DIR) + "/module_globals_sm" + std::to_string(GetParam()) +
                             ".cubin");
  ASSERT_TRUE(elf);
  auto used = globals_kernel_may_use(*elf, "_Z7missingv");
  ASSERT_FALSE(used);
  EXPECT_NE(used.error().message.find("_Z7missingv"), std::string::npos);
#endif
}

INSTANTIATE_TEST_SUITE_P(Archs, KernelGlobals, ::testing::Values(75, 90, 100));

TEST(GlobalMismatch, CompilerGeneratedNeverBlocks) {
  EXPECT_TRUE(is_compiler_generated_global("$str"));
  EXPECT_TRUE(is_compiler_generated_global("$str$1"));
  EXPECT_FALSE(is_compiler_generated_global("table"));
  GlobalMismatch m{"$str$1", "_Z1kv", "c0ffee", "v.cubin", 24, 31};
  EXPECT_EQ(global_mismatch(m, std::set<std::string>{"$str$1"}), "");
}

TEST(GlobalMismatch, UnusedGlobalIsNoError) {
  GlobalMismatch m{"other_data", "_Z1kv", "c0ffee", "v.cubin", 256, 512};
  EXPECT_EQ(global_mismatch(m, std::set<std::string>{"table"}), "");
}

TEST(GlobalMismatch, UsedGlobalNamesGlobalKernelAndCapture) {
  GlobalMismatch m{"table", "_Z1kv", "c0ffee", "v.cubin", 256, 512};
  std::string e = global_mismatch(m, std::set<std::string>{"table"});
  for (const char *part : {"global table", "capture c0ffee", "256 bytes", "512 bytes", "v.cubin", "kernel _Z1kv"})
    EXPECT_NE(e.find(part), std::string::npos) << part << " missing from: " << e;
  // Without the analysis every global counts as used.
  EXPECT_NE(global_mismatch(m, kbcc::make_error("not a cubin")).find("may use it"), std::string::npos);
}
