#include "agent/selector.h"
#include "agent/update.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <map>

using namespace kbcc::agent;

namespace {
std::vector<Option> opts() {
  std::vector<Option> v(4);
  const char *ids[] = {"a", "b", "c", "d"};
  double pred[] = {1.5, 1.3, 1.1, 1.0};
  for (int i = 0; i < 4; ++i) {
    v[i].id = ids[i];
    v[i].predicted_speedup = pred[i];
  }
  return v;
}
auto all = [](const Option &) { return true; };
} // namespace

TEST(Selector, RngIsDeterministicAndForksIndependently) {
  Rng a(42), b(42);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(a.next(), b.next());
  Rng c(42);
  EXPECT_EQ(c.fork(1).next(), Rng(42).fork(1).next());
  EXPECT_NE(c.fork(1).next(), c.fork(2).next());
  double u = Rng(7).uniform();
  EXPECT_GE(u, 0.0);
  EXPECT_LT(u, 1.0);
}

TEST(Selector, SameSeedSameSequence) {
  auto run = [](uint64_t seed) {
    Rng rng(seed);
    std::string seq;
    for (int i = 0; i < 50; ++i)
      seq += select_option(opts(), all, SelectorOptions{}, rng)->option.id;
    return seq;
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

TEST(Selector, PrefersHighExpectedGainButExplores) {
  SelectorOptions o;
  Rng rng(1);
  std::map<std::string, int> counts;
  int explored = 0;
  for (int i = 0; i < 4000; ++i) {
    auto c = select_option(opts(), all, o, rng);
    ++counts[c->option.id];
    explored += c->explored;
  }
  EXPECT_GT(counts["a"], counts["b"]);
  EXPECT_GT(counts["b"], counts["c"]);
  EXPECT_GT(counts["d"], 0); // outside the top-3: only exploration reaches it
  EXPECT_LT(counts["d"], 4000 * o.exploration / 4 * 1.5);
  EXPECT_NEAR(explored / 4000.0, o.exploration, 0.03);
}

TEST(Selector, NoExplorationStaysInTopK) {
  SelectorOptions o;
  o.exploration = 0;
  o.top_k = 2;
  Rng rng(9);
  for (int i = 0; i < 500; ++i) {
    auto id = select_option(opts(), all, o, rng)->option.id;
    EXPECT_TRUE(id == "a" || id == "b") << id;
  }
}

TEST(Selector, EvidenceOfFailureLowersTheScore) {
  auto v = opts();
  for (int i = 0; i < 6; ++i)
    apply_attempt(v[0].stats, Outcome::Failed, 0, 1.5);
  EXPECT_LT(selection_score(v[0], {}), selection_score(v[1], {}));
}

TEST(Selector, RespectsEligibility) {
  Rng rng(5);
  auto only_c = [](const Option &o) { return o.id == "c"; };
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(select_option(opts(), only_c, {}, rng)->option.id, "c");
  EXPECT_FALSE(select_option(
                   opts(), [](const Option &) { return false; }, {}, rng)
                   .has_value());
}

TEST(Selector, GreedyTakesTheBestScoreAndDrawsAmongEqualOnes) {
  SelectorOptions o;
  o.greedy = true;
  Rng rng(2);
  for (int i = 0; i < 50; ++i) {
    auto c = select_option(opts(), all, o, rng);
    EXPECT_EQ(c->option.id, "a");
    EXPECT_FALSE(c->explored);
  }
  // Without evidence every option scores the same: each is drawn, none is favoured by its id.
  std::vector<Option> blank(4);
  const char *ids[] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; ++i)
    blank[i].id = ids[i];
  std::map<std::string, int> counts;
  for (int i = 0; i < 4000; ++i)
    ++counts[select_option(blank, all, o, rng)->option.id];
  for (const char *id : ids)
    EXPECT_NEAR(counts[id], 1000, 150) << id;
}
