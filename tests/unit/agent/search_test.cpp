// Which parameter settings a mechanical step tries.
#include "agent/lowering.h"

#include <gtest/gtest.h>

using namespace kbcc::agent;
using kbcc::transform::Axis;
using kbcc::transform::Params;

namespace {
std::vector<Axis> space() { return {{"lanes", {"32", "128", "16", "8"}}, {"block", {"256", "128", "512"}}}; }
} // namespace

TEST(Search, SmallSpacesAreTriedWhole) {
  auto order = search_order({{"factor", {"4", "8", "2"}}}, {}, 8, 0);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0].at("factor"), "4");
}

TEST(Search, TheKbRankingComesFirst) {
  auto order = search_order(space(), {"lanes=8", "block=512"}, 4, 0);
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[0].at("lanes"), "8");
  EXPECT_EQ(order[0].at("block"), "512");
}

TEST(Search, TrajectoriesExploreDifferentSettingsWithinTheBudget) {
  auto a = search_order(space(), {}, 4, 0), b = search_order(space(), {}, 4, 1);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(a[0], b[0]); // the most promising setting is always tried
  EXPECT_NE(a, b);
  std::set<Params> distinct(a.begin(), a.end());
  EXPECT_EQ(distinct.size(), 4u);
}
