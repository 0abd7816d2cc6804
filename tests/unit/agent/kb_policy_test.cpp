#include "agent/kb_policy.h"
#include "agent/loop.h"
#include "agent/lowering.h"
#include "agent/state.h"
#include "agent/update.h"
#include "cache/env.h"
#include "support/fs.h"
#include "test_support.h"

#include <gtest/gtest.h>

using namespace kbcc;
using namespace kbcc::agent;

namespace {
const Metrics kStreaming{{"dram_throughput_pct", 88}, {"sm_throughput_pct", 20}};

const Option *find(const std::vector<Option> &v, const std::string &id) {
  for (const auto &o : v)
    if (o.id == id) return &o;
  return nullptr;
}
} // namespace

TEST(KbPolicy, SeedStatesAndMechanicalCandidates) {
  auto seed = kb::seed_policy();
  ASSERT_TRUE(seed) << seed.error().message;
  KbPolicy p(*seed, nullptr, "tester");
  auto s = extract_state(p, kStreaming);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name, "dram_bandwidth_bound");
  EXPECT_FALSE(s->is_new);
  auto opts = p.options(s->name, "sm_90");
  const Option *ldg = find(opts, "readonly_cache_ldg");
  ASSERT_NE(ldg, nullptr);
  EXPECT_EQ(ldg->mechanical, "restrict_ldg");
  EXPECT_EQ(ldg->stats.attempts, 0);
  // Every mechanical id in the seed KB has a transform.
  for (const auto &o : p.all_options(s->name, "sm_90"))
    if (!o.mechanical.empty()) {
      EXPECT_TRUE(MechanicalLowerer().can_lower(o)) << o.id;
    }
}

TEST(KbPolicy, AttemptsBecomeEvidencePerArchAndState) {
  KbPolicy p(*kb::seed_policy(), nullptr, "tester");
  ASSERT_TRUE(p.record("dram_bandwidth_bound", "readonly_cache_ldg", "sm_90", {Outcome::Improved, true, 1.5, 1.1}));
  ASSERT_TRUE(p.record("dram_bandwidth_bound", "readonly_cache_ldg", "sm_90", {Outcome::Failed, false, 0, 1.1}));
  ASSERT_TRUE(p.record("dram_bandwidth_bound", "readonly_cache_ldg", "sm_90", {Outcome::Regressed, true, 0.8, 1.1}));
  const Option *o = find(p.options("dram_bandwidth_bound", "sm_90"), "readonly_cache_ldg");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->stats.attempts, 3);
  EXPECT_EQ(o->stats.successes, 1);
  EXPECT_EQ(o->stats.failures, 1);
  EXPECT_NEAR(o->stats.speedup_mean, std::sqrt(1.5 * 0.8), 1e-9);
  EXPECT_EQ(find(p.options("dram_bandwidth_bound", "sm_80"), "readonly_cache_ldg")->stats.attempts, 0);
  // Other archs' evidence moves the prior for a new arch.
  double prior = kb::seed_policy()->find_optimization("readonly_cache_ldg")->prior.typical_speedup;
  EXPECT_NE(find(p.options("dram_bandwidth_bound", "sm_80"), "readonly_cache_ldg")->predicted_speedup, prior);
}

TEST(KbPolicy, DiscoveredStateIsValidKb) {
  KbPolicy p(*kb::seed_policy(), nullptr, "tester");
  // Satisfies at most half of any seed state's signature ranges.
  Metrics odd{{"dram_throughput_pct", 60}, {"sm_throughput_pct", 65}, {"achieved_occupancy_pct", 90},
              {"inst_alu_pct", 5},         {"l2_throughput_pct", 20}, {"inst_fma_pct", 5}};
  auto s = extract_state(p, odd);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->is_new);
  EXPECT_TRUE(kb::validate_policy_json(p.document(), "test"))
      << kb::validate_policy_json(p.document(), "t").error().message;
  EXPECT_FALSE(p.options(s->name, "sm_90").empty());
  auto again = extract_state(p, odd);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->name, s->name);
}

TEST(KbPolicy, PatchesAreSchemaCheckedAndPersisted) {
  auto dir = *make_temp_dir("kbcc-kbpolicy");
  auto env = cache::Env::open(dir);
  ASSERT_TRUE(env) << env.error().message;
  kb::PolicyStore store(**env);
  auto loaded = store.load();
  ASSERT_TRUE(loaded);
  KbPolicy p(*loaded, &store, "tester");
  nlohmann::json doc = p.document();
  size_t idx = 0;
  for (; idx < doc["optimizations"].size(); ++idx)
    if (doc["optimizations"][idx]["id"] == "readonly_cache_ldg") break;
  std::string base = "/optimizations/" + std::to_string(idx);
  nlohmann::json good = nlohmann::json::array(
      {{{"op", "add"}, {"path", base + "/insights/-"}, {"value", "gave 1.4x on saxpy-like streaming kernels"}}});
  ASSERT_TRUE(p.apply_patch(good)) << p.apply_patch(good).error().message;
  nlohmann::json bad = nlohmann::json::array({{{"op", "replace"}, {"path", base + "/category"}, {"value", "magic"}}});
  EXPECT_FALSE(p.apply_patch(bad));
  nlohmann::json stats = nlohmann::json::array({{{"op", "remove"}, {"path", base + "/stats"}}});
  EXPECT_FALSE(p.apply_patch(stats));
  ASSERT_TRUE(p.record("dram_bandwidth_bound", "readonly_cache_ldg", "sm_90", {Outcome::Improved, true, 1.4, 1.1}));
  // A fresh reader of the store sees the edit and the evidence.
  auto again = store.load();
  ASSERT_TRUE(again);
  const kb::Optimization *o = again->find_optimization("readonly_cache_ldg");
  ASSERT_NE(o, nullptr);
  EXPECT_NE(std::find(o->insights.begin(), o->insights.end(), "gave 1.4x on saxpy-like streaming kernels"),
            o->insights.end());
  EXPECT_GT(o->revision, 1u);
  EXPECT_EQ(again->summary("readonly_cache_ldg", "sm_90").attempts, 1u);
  env->reset();
  remove_all(dir);
}

TEST(KbPolicy, SeedKbDrivesTheMechanicalLoop) {
  // A streaming kernel on the seed KB without an LLM: the loop reaches the
  // read-only-cache technique (restrict_ldg) and records the evidence.
  KbPolicy p(*kb::seed_policy(), nullptr, "tester");
  auto run = [&](uint64_t seed) {
    test::FakeEvaluator ev;
    ev.base = Measurement{Timing{1.0, 0.002, 50}, kStreaming, 1};
    ev.judge = [](const Candidate &c) {
      bool ldg = c.source.find("__restrict__") != std::string::npos;
      return test::ok_eval(ldg ? 0.8 : 1.0, kStreaming);
    };
    KernelTask t;
    t.kernel.qualified_name = "saxpy";
    t.kernel.hash = "ffff0000000000000000000000000000";
    t.kernel.source = test::kSaxpy;
    t.arch = "sm_90";
    t.launches.resize(1);
    t.launches[0].block[0] = 128;
    CombinedLowerer lowerer(nullptr);
    LoopOptions o;
    o.seed = seed;
    Budget b;
    auto r = optimize_kernel(t, ev, p, lowerer, o, b, {});
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : KernelResult{};
  };
  KernelResult first = run(1);
  ASSERT_TRUE(first.best.has_value());
  EXPECT_NE(first.best->source.find("const float * __restrict__ x"), std::string::npos);
  EXPECT_NEAR(first.speedup, 1.25, 1e-9);
  const Option *ldg = find(p.options("dram_bandwidth_bound", "sm_90"), "readonly_cache_ldg");
  ASSERT_NE(ldg, nullptr);
  EXPECT_GE(ldg->stats.successes, 1);
  // It is the seed KB's only mechanical technique for this state, so every
  // kernel's first step uses it, and the evidence adds up across kernels.
  int before = ldg->stats.successes;
  for (uint64_t seed = 100; seed < 105; ++seed) {
    KernelResult r = run(seed);
    ASSERT_FALSE(r.trajectories.empty());
    EXPECT_EQ(r.trajectories[0].steps.at(0).option, "readonly_cache_ldg");
  }
  EXPECT_GE(find(p.options("dram_bandwidth_bound", "sm_90"), "readonly_cache_ldg")->stats.successes, before + 5);
}
