#include "driver/args.h"

#include <gtest/gtest.h>

using namespace kbcc::driver;
using V = std::vector<std::string>;

TEST(Targets, ArchAloneMeansSassAndPtx) {
  Targets t = resolve_targets({}, "sm_80", {});
  EXPECT_EQ(t.sass, V{"sm_80"});
  EXPECT_EQ(t.ptx, V{"compute_80"});
  EXPECT_EQ(resolve_targets({}, "sm_90a", {}).sass, V{"sm_90a"});
}

TEST(Targets, VirtualArchAloneIsPtxOnly) {
  Targets t = resolve_targets({}, "compute_80", {});
  EXPECT_TRUE(t.sass.empty());
  EXPECT_EQ(t.ptx, V{"compute_80"});
}

TEST(Targets, ArchWithCodeList) {
  Targets t = resolve_targets({}, "compute_80", {"sm_80", "sm_86", "compute_80"});
  EXPECT_EQ(t.sass, (V{"sm_80", "sm_86"}));
  EXPECT_EQ(t.ptx, V{"compute_80"});
}

TEST(Targets, GencodeForms) {
  EXPECT_EQ(resolve_targets({"arch=compute_80,code=sm_80"}, "", {}).sass, V{"sm_80"});
  EXPECT_TRUE(resolve_targets({"arch=compute_80,code=sm_80"}, "", {}).ptx.empty());
  Targets cmake = resolve_targets({"arch=compute_52,code=[compute_52,sm_52]"}, "", {});
  EXPECT_EQ(cmake.sass, V{"sm_52"});
  EXPECT_EQ(cmake.ptx, V{"compute_52"});
  Targets quoted = resolve_targets({"arch=compute_90,code=sm_90,compute_90"}, "", {}); // code="sm_90,compute_90"
  EXPECT_EQ(quoted.sass, V{"sm_90"});
  EXPECT_EQ(quoted.ptx, V{"compute_90"});
  Targets two = resolve_targets({"arch=compute_80,code=sm_80", "arch=compute_90,code=[sm_90,compute_90]"}, "", {});
  EXPECT_EQ(two.sass, (V{"sm_80", "sm_90"}));
  Targets mixed = resolve_targets({"arch=compute_80,code=sm_80"}, "sm_90", {}); // nvcc takes the union
  EXPECT_EQ(mixed.sass, (V{"sm_80", "sm_90"}));
}

TEST(Targets, Errors) {
  EXPECT_EQ(resolve_targets({"arch=compute_80,code=sm_80,arch=compute_90"}, "", {}).error, "unknown-gencode");
  EXPECT_EQ(resolve_targets({"arch=compute_80,foo=bar"}, "", {}).error, "unknown-gencode");
  EXPECT_EQ(resolve_targets({}, "sm_80,sm_90", {}).error, "unknown-arch");
  EXPECT_EQ(resolve_targets({}, "all", {}).error, "arch-all");
  EXPECT_FALSE(resolve_targets({}, "", {}).any);
}

TEST(Targets, EveryFormThroughTheParser) {
  NvccEnvironment e{"", "", "/p"};
  for (auto args : std::vector<V>{{"-gencode", "arch=compute_80,code=sm_80"},
                                  {"-gencode=arch=compute_80,code=sm_80"},
                                  {"--generate-code", "arch=compute_80,code=[sm_80]"},
                                  {"--generate-code=arch=compute_80,code=[compute_80,sm_80]"},
                                  {"-arch", "sm_80"},
                                  {"-arch=sm_80"},
                                  {"--gpu-architecture=sm_80"},
                                  {"-arch=compute_80", "-code=sm_80"},
                                  {"--gpu-architecture", "compute_80", "--gpu-code", "sm_80,compute_80"}}) {
    args.insert(args.begin(), "nvcc");
    args.insert(args.end(), {"-c", "k.cu"});
    ParseResult r = parse_nvcc_command(args, e);
    ASSERT_TRUE(std::holds_alternative<Compilation>(r)) << args[1];
    EXPECT_EQ(std::get<Compilation>(r).unit.archs, V{"sm_80"}) << args[1];
  }
}
