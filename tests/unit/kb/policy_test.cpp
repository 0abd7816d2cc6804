#include "kb/policy.h"
#include "test_dir.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

namespace kbcc::kb {
namespace {

TEST(Seed, HasEnoughStatesAndOptimizations) {
  auto p = seed_policy();
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_GE(p->states.size(), 15u);
  EXPECT_GE(p->optimizations.size(), 40u);
  for (const auto &s : p->states) {
    EXPECT_FALSE(s.primary_bottleneck.empty()) << s.id;
    EXPECT_FALSE(s.secondary.empty()) << s.id;
    EXPECT_FALSE(s.signature.empty()) << s.id;
    EXPECT_FALSE(s.optimizations.empty()) << s.id;
  }
  std::set<std::string> mech;
  for (const auto &o : p->optimizations) {
    EXPECT_FALSE(o.technique.empty());
    EXPECT_FALSE(o.category.empty());
    EXPECT_FALSE(o.applies_when.states.empty()) << o.id;
    EXPECT_FALSE(o.stats.empty()) << o.id; // per-arch statistics, empty evidence
    if (o.mechanical) {
      EXPECT_NE(std::find(kMechanicalLowerings.begin(), kMechanicalLowerings.end(), *o.mechanical),
                kMechanicalLowerings.end());
      mech.insert(*o.mechanical);
    }
    EXPECT_EQ(p->summary(o.id).attempts, 0u); // the seed claims no evidence
  }
  EXPECT_EQ(mech.size(), kMechanicalLowerings.size()); // every lowering has an optimization
}

TEST(Policy, RecordAndSummarize) {
  Policy p = *seed_policy();
  ASSERT_TRUE(p.record("dram_bandwidth_bound", "vectorized_loads", "sm_90", "alice", {true, true, true, 1.5}));
  ASSERT_TRUE(p.record("dram_bandwidth_bound", "vectorized_loads", "sm_90", "alice", {true, true, false, 0.9}));
  ASSERT_TRUE(p.record("dram_bandwidth_bound", "vectorized_loads", "sm_90", "bob", {false, false, false, 0}));
  ASSERT_TRUE(p.record("uncoalesced_global_access", "vectorized_loads", "sm_80", "bob", {true, false, false, 0}));
  EXPECT_FALSE(p.record("x", "no_such", "sm_90", "alice", {}));
  auto s = p.summary("vectorized_loads", "sm_90");
  EXPECT_EQ(s.attempts, 3u);
  EXPECT_EQ(s.successes, 1u);
  EXPECT_EQ(s.compile_failures, 1u);
  EXPECT_EQ(s.contributors, 2u);
  EXPECT_NEAR(s.geomean_speedup, std::sqrt(1.5 * 0.9), 1e-12);
  EXPECT_DOUBLE_EQ(s.max_speedup, 1.5);
  EXPECT_GT(s.confidence, 0);
  auto all = p.summary("vectorized_loads");
  EXPECT_EQ(all.attempts, 4u);
  EXPECT_EQ(all.validation_failures, 1u);
  EXPECT_EQ(p.summary("vectorized_loads", "sm_90", "uncoalesced_global_access").attempts, 0u);
}

TEST(Policy, CandidatesFollowTheStateAndArch) {
  Policy p = *seed_policy();
  auto c = p.candidates("tensor_core_eligible", 75);
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.front()->id, p.find_state("tensor_core_eligible")->optimizations.front());
  for (const auto *o : c)
    EXPECT_LE(o->applies_when.min_arch, 75) << o->id;
  auto ids = [](const std::vector<const Optimization *> &v) {
    std::set<std::string> s;
    for (auto *o : v)
      s.insert(o->id);
    return s;
  };
  EXPECT_FALSE(ids(c).count("tensor_cores_mma")); // needs sm_80
  EXPECT_TRUE(ids(p.candidates("tensor_core_eligible", 90)).count("tensor_cores_mma"));
}

TEST(Policy, MatchStatesBySignature) {
  Policy p = *seed_policy();
  auto m = p.match_states({{"dram_throughput_pct", 88}, {"sm_throughput_pct", 20}});
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m.front().first, "dram_bandwidth_bound");
  EXPECT_DOUBLE_EQ(m.front().second, 1.0);
  auto spill = p.match_states({{"spill_bytes", 256}});
  ASSERT_FALSE(spill.empty());
  EXPECT_EQ(spill.front().first, "register_spilling");
}

TEST(Policy, SpeedupHistogramQuantiles) {
  SpeedupStats s;
  for (double x : {1.0, 1.02, 1.3, 1.3, 3.0})
    s.add(x);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 3.0);
  double med = s.quantile(0.5);
  EXPECT_GE(med, 1.25);
  EXPECT_LE(med, 1.5);
  s.add(-1); // ignored
  s.add(0);
  EXPECT_EQ(s.count, 5u);
}

TEST(PolicyStore, SeedUntilSavedThenUpdatesAreAtomic) {
  test::TempDir d;
  auto env = cache::Env::open(d.path());
  ASSERT_TRUE(env);
  PolicyStore store(**env);
  auto p = store.load();
  ASSERT_TRUE(p);
  EXPECT_EQ(policy_id(*p), policy_id(*seed_policy()));
  ASSERT_TRUE(store.update([](Policy &q) {
    return q.record("warp_divergence", "branch_divergence_removal", "sm_90", "me", {true, true, true, 1.2});
  }));
  auto q = store.load();
  ASSERT_TRUE(q);
  EXPECT_EQ(q->summary("branch_divergence_removal").successes, 1u);
  auto c1 = store.contributor();
  auto c2 = store.contributor();
  ASSERT_TRUE(c1 && c2);
  EXPECT_EQ(*c1, *c2);
  EXPECT_EQ(c1->rfind("c-", 0), 0u);
  EXPECT_EQ(*store.contributor("lab-7"), "lab-7");
  EXPECT_FALSE(store.contributor("bad id!"));
}

} // namespace
} // namespace kbcc::kb
