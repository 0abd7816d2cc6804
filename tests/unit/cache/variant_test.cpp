#include "cache/variant.h"
#include "test_dir.h"

#include <gtest/gtest.h>

namespace kbcc::cache {
namespace {

using test::TempDir;

VariantRecord sample(const std::string &arch = "sm_90", double variant_us = 5.0) {
  VariantRecord r;
  r.kernel_hash = "0123456789abcdef0123456789abcdef";
  r.arch = arch;
  r.qualified_name = "scale";
  r.source = "__global__ void scale(float *x, int n) { /* faster */ }";
  r.toolchain = "nvcc 13.0";
  r.provenance = {"traj-1", {"vectorized_loads"}, "kb-id", "", "c-test", 1700000000};
  r.validation = {12, 1e-7, 1e-5, "clean", ""};
  r.timing = {10.0, 0.1, variant_us, 0.05, 50, "NVIDIA H100", "580.0"};
  return r;
}

TEST(Variant, JsonRoundTripKeepsEveryField) {
  VariantRecord r = sample();
  auto back = variant_from_json(to_json(r), "t");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(to_json(*back), to_json(r));
  EXPECT_EQ(back->provenance.optimizations, r.provenance.optimizations);
  EXPECT_DOUBLE_EQ(back->timing.speedup(), 2.0);
}

VariantRecord launch_changing() {
  VariantRecord r = sample();
  launch::LaunchMapping m;
  m.grid = {"ceil_div(grid.x * block.x, 8)", "1", "1"};
  m.block = {"256", "1", "1"};
  m.shared = "0";
  m.preconditions = {"aligned(x, 16)"};
  r.launch = m;
  r.numerics = kNumericsReassociates;
  return r;
}

TEST(Variant, RecordsWithoutLaunchOrNumericsStayVersion1) {
  EXPECT_EQ(to_json(sample())["version"], 1);
  EXPECT_FALSE(to_json(sample()).contains("launch"));
  EXPECT_EQ(to_json(launch_changing())["version"], 2);
}

TEST(Variant, LaunchMappingRoundTripsAndIsPartOfTheId) {
  VariantRecord r = launch_changing();
  auto back = variant_from_json(to_json(r), "t");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_TRUE(back->launch);
  EXPECT_EQ(back->launch->grid[0], "ceil_div(grid.x * block.x, 8)");
  EXPECT_EQ(back->numerics, kNumericsReassociates);
  EXPECT_EQ(back->id(), r.id());
  EXPECT_NE(r.id(), sample().id());
  auto j = to_json(r);
  j["launch"]["block"][0] = "128";
  auto tampered = variant_from_json(j, "v.json");
  ASSERT_FALSE(tampered);
  EXPECT_NE(tampered.error().message.find("$.id"), std::string::npos);
}

TEST(Variant, AMappingSpelledOtherwiseThanCanonicallyRoundTrips) {
  VariantRecord r = launch_changing();
  r.launch->grid[0] = "ceil_div((grid.x*block.x), 4096)";
  r.launch->preconditions = {"(grid.x * block.x) % 4096 == 0 || n <= grid.x*block.x"};
  auto back = variant_from_json(to_json(r), "t");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->id(), r.id());
  // The text is the same too: a remote store addresses a record by its hash.
  EXPECT_EQ(to_json(*back).dump(), to_json(r).dump());
  EXPECT_EQ(to_json(r)["launch"]["grid"][0], "ceil_div(grid.x * block.x, 4096)");
}

TEST(Variant, FutureVersionsAndBadMappingsAreRefusedClearly) {
  auto j = to_json(launch_changing());
  j["version"] = 3;
  auto r = variant_from_json(j, "v.json");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("variant format version 3 is not supported"), std::string::npos);
  j = to_json(launch_changing());
  j["launch"]["preconditions"] = {"block.x %% 2"};
  j.erase("id");
  r = variant_from_json(j, "v.json");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("v.json: $.launch"), std::string::npos) << r.error().message;
  j = to_json(sample());
  j["launch"] = to_json(launch_changing())["launch"];
  j.erase("id");
  EXPECT_FALSE(variant_from_json(j, "v.json"));
  VariantRecord odd = sample();
  odd.numerics = "approximately";
  EXPECT_FALSE(check_variant(odd));
}

TEST(Variant, ParseErrorsNameTheField) {
  auto j = to_json(sample());
  j["validation"]["captures_checked"] = "many";
  auto r = variant_from_json(j, "v.json");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("v.json: $.validation.captures_checked"), std::string::npos) << r.error().message;
  auto j2 = to_json(sample());
  j2.erase("validation");
  auto r2 = variant_from_json(j2, "v.json");
  ASSERT_FALSE(r2);
  EXPECT_NE(r2.error().message.find("$.validation"), std::string::npos);
}

TEST(Variant, TamperedIdIsRejected) {
  auto j = to_json(sample());
  j["source"] = "__global__ void scale(float *x, int n) { /* evil */ }";
  auto r = variant_from_json(j, "v.json");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("$.id"), std::string::npos);
}

TEST(Variant, StoreRefusesRecordsWithoutValidationEvidence) {
  TempDir d;
  auto env = Env::open(d.path());
  ASSERT_TRUE(env);
  VariantStore store(**env);
  VariantRecord r = sample();
  r.validation.captures_checked = 0;
  auto put = store.put(r);
  ASSERT_FALSE(put);
  EXPECT_EQ(put.error().code, "unvalidated");
  r = sample();
  r.validation.max_error = 1.0; // above tolerance
  EXPECT_FALSE(store.put(r));
  r = sample();
  r.validation.sanitizer = "errors";
  EXPECT_FALSE(store.put(r));
  auto got = store.get(r.kernel_hash, r.arch);
  ASSERT_TRUE(got);
  EXPECT_FALSE(got->has_value());
}

TEST(Variant, PutGetListRemove) {
  TempDir d;
  auto env = Env::open(d.path());
  ASSERT_TRUE(env);
  VariantStore store(**env);
  ASSERT_TRUE(store.put(sample("sm_90")));
  ASSERT_TRUE(store.put(sample("sm_80")));
  auto got = store.get(sample().kernel_hash, "sm_80", true);
  ASSERT_TRUE(got && got->has_value());
  EXPECT_EQ((*got)->arch, "sm_80");
  auto all = store.list();
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 2u);
  auto only = store.list("sm_90");
  ASSERT_TRUE(only);
  ASSERT_EQ(only->size(), 1u);
  auto rm = store.remove(sample().kernel_hash, "sm_90");
  ASSERT_TRUE(rm);
  EXPECT_TRUE(*rm);
  EXPECT_EQ(store.list()->size(), 1u);
  EXPECT_EQ(*store.clear(), 1u);
  EXPECT_TRUE(store.list()->empty());
}

TEST(Variant, KeepFasterDoesNotReplaceABetterRecord) {
  TempDir d;
  auto env = Env::open(d.path());
  ASSERT_TRUE(env);
  VariantStore store(**env);
  ASSERT_TRUE(*store.put(sample("sm_90", 4.0))); // 2.5x
  auto slower = sample("sm_90", 8.0);            // 1.25x
  slower.source += " ";
  EXPECT_FALSE(*store.put(slower));
  EXPECT_DOUBLE_EQ((*store.get(slower.kernel_hash, "sm_90"))->timing.variant_median_us, 4.0);
  EXPECT_TRUE(*store.put(slower, VariantStore::PutMode::kReplace));
  EXPECT_DOUBLE_EQ((*store.get(slower.kernel_hash, "sm_90"))->timing.variant_median_us, 8.0);
}

} // namespace
} // namespace kbcc::cache

namespace kbcc::cache {
namespace {

TEST(Variant, TheNameIndexSaysWhichUnitsAVariantMayApplyTo) {
  test::TempDir d;
  auto env = Env::open(d.path());
  ASSERT_TRUE(env) << env.error().message;
  VariantStore store(**env);
  VariantRecord r = sample("sm_80");
  r.qualified_name = "ns::scale<float>";
  ASSERT_TRUE(store.put(r));
  auto yes = store.may_apply({"sm_80"}, {"float", "scale", "x"});
  ASSERT_TRUE(yes) << yes.error().message;
  EXPECT_TRUE(*yes);
  EXPECT_FALSE(*store.may_apply({"sm_90"}, {"scale"})); // another arch
  EXPECT_FALSE(*store.may_apply({"sm_80"}, {"shift"})); // another kernel
  // A record without a name may apply anywhere.
  VariantRecord unnamed = sample("sm_90");
  unnamed.kernel_hash = "ffffffffffffffffffffffffffffffff";
  unnamed.qualified_name = "";
  ASSERT_TRUE(store.put(unnamed));
  EXPECT_TRUE(*store.may_apply({"sm_90"}, {"anything"}));
  // Clearing the cache clears the index.
  ASSERT_TRUE(store.clear());
  EXPECT_FALSE(*store.may_apply({"sm_80", "sm_90"}, {"scale", "anything"}));
}

TEST(Variant, AStoreWithoutTheNameIndexGetsOneFromItsVariants) {
  test::TempDir d;
  auto env = Env::open(d.path());
  ASSERT_TRUE(env);
  // As a store written before the index: the variant is there, its name is not.
  VariantRecord r = sample("sm_80");
  ASSERT_TRUE((*env)->write([&](Txn &txn) {
    return txn.put(kVariantTable, variant_key(r.kernel_hash, r.arch), to_json(r).dump());
  }));
  EXPECT_TRUE(*VariantStore(**env).may_apply({"sm_80"}, {"scale"}));
  EXPECT_EQ(kernel_base_name("a::b::k<int, 3>"), "k");
  EXPECT_EQ(kernel_base_name("k"), "k");
}

} // namespace
} // namespace kbcc::cache
