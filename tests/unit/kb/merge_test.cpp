// Property-style tests of KB merge: each contributor has one true history
// of attempts; every KB holds some prefix of each history (it synced at
// some point), plus random definition edits and insights.
#include "kb/policy.h"

#include <gtest/gtest.h>
#include <random>

namespace kbcc::kb {
namespace {

struct Attempt {
  std::string state, optimization, arch;
  Outcome outcome;
};
using Histories = std::map<std::string, std::vector<Attempt>>;

const std::vector<std::string> kArchs = {"sm_80", "sm_90", "sm_100"};

Histories make_histories(std::mt19937 &rng, const Policy &seed) {
  Histories h;
  for (const char *who : {"alice", "bob", "carol", "dave"}) {
    size_t n = rng() % 40;
    for (size_t i = 0; i < n; ++i) {
      const auto &o = seed.optimizations[rng() % 6]; // a few, so keys collide
      Outcome out;
      out.compiled = rng() % 5 != 0;
      out.validated = out.compiled && rng() % 4 != 0;
      out.speedup = out.validated ? 0.5 + (rng() % 300) / 100.0 : 0;
      out.success = out.validated && out.speedup > 1.05;
      h[who].push_back({o.applies_when.states.front(), o.id, kArchs[rng() % kArchs.size()], out});
    }
  }
  return h;
}

// A KB that has seen `prefix[c]` attempts of contributor c.
Policy kb_with(const Policy &seed, const Histories &h, const std::map<std::string, size_t> &prefix) {
  Policy p = seed;
  for (const auto &[who, attempts] : h)
    for (size_t i = 0; i < prefix.at(who) && i < attempts.size(); ++i) {
      const auto &a = attempts[i];
      EXPECT_TRUE(p.record(a.state, a.optimization, a.arch, who, a.outcome));
    }
  return p;
}

Policy random_kb(std::mt19937 &rng, const Policy &seed, const Histories &h) {
  std::map<std::string, size_t> prefix;
  for (const auto &[who, attempts] : h)
    prefix[who] = attempts.empty() ? 0 : rng() % (attempts.size() + 1);
  Policy p = kb_with(seed, h, prefix);
  // Textual edits: an insight, and sometimes a revised definition.
  auto &o = p.optimizations[rng() % 8];
  o.insights.push_back("insight " + std::to_string(rng() % 5));
  std::sort(o.insights.begin(), o.insights.end());
  o.insights.erase(std::unique(o.insights.begin(), o.insights.end()), o.insights.end());
  if (rng() % 2) {
    auto &s = p.states[rng() % 4];
    s.revision = 1 + rng() % 3;
    s.description = "edited " + std::to_string(rng() % 3);
  }
  if (rng() % 3 == 0) {
    State n;
    n.id = "discovered_" + std::to_string(rng() % 3);
    n.primary_bottleneck = "other";
    n.signature = {{"duration_us", 1.0, std::nullopt}};
    n.optimizations = {p.optimizations[0].id};
    p.upsert_state(n);
  }
  return p;
}

class MergeProperties : public ::testing::Test {
protected:
  Policy seed = *seed_policy();
};

TEST_F(MergeProperties, CommutativeAssociativeIdempotent) {
  for (unsigned iter = 0; iter < 150; ++iter) {
    std::mt19937 rng(iter);
    Histories h = make_histories(rng, seed);
    Policy a = random_kb(rng, seed, h), b = random_kb(rng, seed, h), c = random_kb(rng, seed, h);
    EXPECT_EQ(canonical_text(merge(a, b)), canonical_text(merge(b, a))) << iter;
    EXPECT_EQ(canonical_text(merge(merge(a, b), c)), canonical_text(merge(a, merge(b, c)))) << iter;
    EXPECT_EQ(canonical_text(merge(a, a)), canonical_text(a)) << iter;
    Policy ab = merge(a, b);
    EXPECT_EQ(canonical_text(merge(ab, b)), canonical_text(ab)) << iter; // re-merging adds nothing
  }
}

TEST_F(MergeProperties, EvidenceAddsUpWithoutDoubleCounting) {
  for (unsigned iter = 0; iter < 150; ++iter) {
    std::mt19937 rng(1000 + iter);
    Histories h = make_histories(rng, seed);
    std::map<std::string, size_t> pa, pb, most;
    for (const auto &[who, attempts] : h) {
      pa[who] = attempts.empty() ? 0 : rng() % (attempts.size() + 1);
      pb[who] = attempts.empty() ? 0 : rng() % (attempts.size() + 1);
      most[who] = std::max(pa[who], pb[who]);
    }
    Policy a = kb_with(seed, h, pa), b = kb_with(seed, h, pb);
    Policy expected = kb_with(seed, h, most);
    Policy m = merge(a, b);
    EXPECT_EQ(canonical_text(m), canonical_text(expected)) << iter;
    for (const auto &o : seed.optimizations) {
      auto sm = m.summary(o.id), se = expected.summary(o.id);
      EXPECT_EQ(sm.attempts, se.attempts);
      EXPECT_EQ(sm.successes, se.successes);
    }
  }
}

TEST_F(MergeProperties, DisjointContributorsSum) {
  Policy a = seed, b = seed;
  ASSERT_TRUE(a.record("dram_bandwidth_bound", "vectorized_loads", "sm_90", "alice", {true, true, true, 1.4}));
  ASSERT_TRUE(a.record("dram_bandwidth_bound", "vectorized_loads", "sm_90", "alice", {true, true, true, 1.2}));
  ASSERT_TRUE(b.record("dram_bandwidth_bound", "vectorized_loads", "sm_90", "bob", {true, true, false, 0.95}));
  Policy m = merge(a, b);
  auto s = m.summary("vectorized_loads", "sm_90");
  EXPECT_EQ(s.attempts, 3u);
  EXPECT_EQ(s.successes, 2u);
  EXPECT_EQ(s.contributors, 2u);
  // Merging the result with either input again changes nothing.
  EXPECT_EQ(m.summary("vectorized_loads").attempts, merge(m, a).summary("vectorized_loads").attempts);
}

TEST_F(MergeProperties, HigherRevisionWinsAndInsightsUnite) {
  Policy a = seed, b = seed;
  a.find_state("warp_divergence")->description = "old";
  a.find_state("warp_divergence")->insights = {"x"};
  b.find_state("warp_divergence")->description = "new";
  b.find_state("warp_divergence")->revision = 2;
  b.find_state("warp_divergence")->insights = {"y"};
  for (const Policy &m : {merge(a, b), merge(b, a)}) {
    EXPECT_EQ(m.find_state("warp_divergence")->description, "new");
    EXPECT_EQ(m.find_state("warp_divergence")->insights, (std::vector<std::string>{"x", "y"}));
  }
}

} // namespace
} // namespace kbcc::kb
