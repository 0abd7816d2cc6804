#include "gpu/analysis.h"
#include "support/fs.h"

#include <algorithm>
#include <gtest/gtest.h>

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
