// Deferred registration's decision (driver/deferral.h): parse now only when a
// variant may apply to the unit.
#include "cache/env.h"
#include "cache/variant.h"
#include "driver/deferral.h"
#include "support/fs.h"

#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::driver;

namespace {

struct Dir {
  std::string path = *make_temp_dir("kbcc-deferral-test");
  ~Dir() { remove_all(path); }
};

CompileUnit unit_in(const std::string &dir, const std::string &text) {
  CompileUnit u;
  u.source = dir + "/k.cu";
  u.source_abs = u.source;
  EXPECT_TRUE(write_file_atomic(u.source, text));
  u.archs = {"sm_80"};
  u.nvcc_argv = {"/usr/local/cuda/bin/nvcc", "-c", u.source, "-arch=sm_80"};
  u.working_dir = dir;
  return u;
}

void store_variant_named(const std::string &kbcc_dir, const std::string &name) {
  auto env = cache::Env::open(kbcc_dir);
  ASSERT_TRUE(env);
  cache::VariantRecord r;
  r.kernel_hash = "0123456789abcdef0123456789abcdef";
  r.arch = "sm_80";
  r.qualified_name = name;
  r.source = "__global__ void " + name + "() {}";
  r.validation = {1, 0, 1e-6, "clean", ""};
  r.timing = {10, 0.1, 5, 0.1, 10, "gpu", "0"};
  ASSERT_TRUE(cache::VariantStore(**env).put(r));
}

} // namespace

TEST(Deferral, IdentifiersAreWordsNotNumbers) {
  auto ids = identifiers_of("__global__ void scale_2(float *x) { x[0] = 1e5f + 0x1F; } // shift");
  EXPECT_TRUE(ids.count("scale_2"));
  EXPECT_TRUE(ids.count("__global__"));
  EXPECT_TRUE(ids.count("shift"));
  EXPECT_FALSE(ids.count("e5f"));
  EXPECT_FALSE(ids.count("x1F"));
}

TEST(Deferral, AUnitIsParsedOnlyWhenItNamesAKernelWithAVariant) {
  Dir d;
  Config config = Config::with({{"dir", d.path + "/kd"}});
  CompileUnit u = unit_in(d.path, "__global__ void scale(float *x) { x[0] *= 2; }\n");
  Deferral none = decide_deferral(config, u);
  EXPECT_TRUE(none.defer) << none.why;
  EXPECT_TRUE(none.record);
  store_variant_named(d.path + "/kd", "ns::other");
  EXPECT_TRUE(decide_deferral(config, u).defer);
  store_variant_named(d.path + "/kd", "ns::scale<float>");
  Deferral some = decide_deferral(config, u);
  EXPECT_FALSE(some.defer);
  EXPECT_EQ(some.why, "a kernel it names may have a variant");
  // Off, or a remote that may hold variants: parse.
  EXPECT_FALSE(decide_deferral(Config::with({{"dir", d.path + "/kd2"}, {"deferred_registration", "false"}}), u).defer);
  EXPECT_FALSE(decide_deferral(Config::with({{"dir", d.path + "/kd2"}, {"remote", "redis://127.0.0.1:1"}}), u).defer);
  // A unit that cannot be read is parsed (the parse path reports it).
  u.source_abs = u.source = d.path + "/missing.cu";
  EXPECT_FALSE(decide_deferral(Config::with({{"dir", d.path + "/kd2"}}), u).defer);
}

TEST(Deferral, AUnitRoundTripsThroughItsPendingRecord) {
  CompileUnit u;
  u.source = "k.cu";
  u.source_abs = "/src/k.cu";
  u.archs = {"sm_80", "sm_90"};
  u.device_flags = {"-DX=1"};
  u.include_flags = {"-I/inc"};
  u.std = "c++17";
  u.nvcc_argv = {"/usr/local/cuda/bin/nvcc", "-c", "k.cu"};
  u.working_dir = "/src";
  u.host_compiler = "g++-12";
  auto back = unit_from_json(unit_to_json(u));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(unit_to_json(*back), unit_to_json(u));
  EXPECT_FALSE(unit_from_json(nlohmann::json{{"source", "k.cu"}}));
}
