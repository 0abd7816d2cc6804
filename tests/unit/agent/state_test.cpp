#include "agent/state.h"
#include "test_support.h"

#include <gtest/gtest.h>

using namespace kbcc::agent;

TEST(State, DistanceScalesPercentMetrics) {
  EXPECT_NEAR(signature_distance({{"dram_throughput_pct", 80}}, {{"dram_throughput_pct", 90}}), 0.1, 1e-12);
  EXPECT_NEAR(signature_distance({{"registers_per_thread", 64}}, {{"registers_per_thread", 32}}), 0.5, 1e-12);
  EXPECT_TRUE(std::isinf(signature_distance({{"a", 1}}, {{"b", 1}})));
  // A missing signature key counts as 0.5.
  EXPECT_NEAR(signature_distance({{"x_pct", 50}}, {{"x_pct", 50}, {"y_pct", 10}}), std::sqrt(0.25 / 2), 1e-12);
}

TEST(State, MatchesNearestKnownState) {
  auto p = JsonPolicy::from_json(test::small_kb());
  ASSERT_TRUE(p);
  auto m = extract_state(*p, {{"dram_throughput_pct", 80}, {"sm_throughput_pct", 25}});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "memory_bound");
  EXPECT_FALSE(m->is_new);
  m = extract_state(*p, {{"dram_throughput_pct", 10}, {"sm_throughput_pct", 95}});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "compute_bound");
  EXPECT_EQ(p->states().size(), 2u);
}

TEST(State, AddsDiscoveredStateWithCandidates) {
  auto p = JsonPolicy::from_json(test::small_kb());
  ASSERT_TRUE(p);
  Metrics m{{"dram_throughput_pct", 30}, {"sm_throughput_pct", 30}, {"achieved_occupancy_pct", 20}};
  auto s = extract_state(*p, m);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->is_new);
  EXPECT_EQ(s->name, "discovered_latency_bound_1");
  EXPECT_EQ(p->states().size(), 3u);
  EXPECT_FALSE(p->options(s->name, "sm_90").empty());
  // The same metrics now match the new state.
  auto again = extract_state(*p, m);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->name, s->name);
  EXPECT_FALSE(again->is_new);
}

TEST(State, BottleneckClassification) {
  EXPECT_EQ(classify_bottleneck({{"dram_throughput_pct", 90}, {"sm_throughput_pct", 30}}), "memory_bound");
  EXPECT_EQ(classify_bottleneck({{"dram_throughput_pct", 20}, {"sm_throughput_pct", 80}}), "compute_bound");
  EXPECT_EQ(classify_bottleneck({{"achieved_occupancy_pct", 20}}), "latency_bound");
  EXPECT_EQ(classify_bottleneck({}), "underutilized");
}

TEST(State, NoMetricsMeansOneUnprofiledState) {
  auto p = JsonPolicy::from_json(test::small_kb());
  ASSERT_TRUE(p);
  auto a = extract_state(*p, {});
  auto b = extract_state(*p, {});
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->name, "unprofiled");
  EXPECT_EQ(b->name, "unprofiled");
  EXPECT_EQ(p->states().size(), 3u);
}
