#include "report/charts.h"
#include "report/data.h"
#include "report/html.h"
#include "seed.h"
#include "support/fs.h"

#include <gtest/gtest.h>

namespace kbcc::report {
namespace {

size_t count(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1))
    ++n;
  return n;
}

class SeededStore : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = make_temp_dir("kbcc-report-test");
    ASSERT_TRUE(dir.has_value());
    dir_ = *dir;
    Status s = testing::seed_store(dir_);
    ASSERT_TRUE(s.has_value()) << s.error().message;
  }
  void TearDown() override { remove_all(dir_); }
  std::string dir_;
};

TEST_F(SeededStore, LoadsEverythingThatWasStored) {
  auto data = load_report_data(dir_);
  ASSERT_TRUE(data.has_value()) << data.error().message;
  EXPECT_TRUE(data->store_found);
  EXPECT_FALSE(data->policy_is_seed);
  EXPECT_EQ(data->registry.size(), 4u);
  EXPECT_EQ(data->variants.size(), 3u);
  EXPECT_EQ(data->trajectories.size(), 6u);
  for (size_t i = 1; i < data->trajectories.size(); ++i)
    EXPECT_LE(data->trajectories[i - 1].started, data->trajectories[i].started);
}

TEST_F(SeededStore, KernelResultsPreferCachedVariantsAndSortBySpeedup) {
  auto data = load_report_data(dir_);
  ASSERT_TRUE(data.has_value());
  auto results = kernel_results(*data);
  ASSERT_EQ(results.size(), 4u); // 3 with variants, 1 with trajectories only
  for (size_t i = 1; i < results.size(); ++i)
    EXPECT_GE(results[i - 1].speedup, results[i].speedup);
  size_t stored = 0;
  for (const auto &r : results)
    stored += r.stored;
  EXPECT_EQ(stored, 3u);
  EXPECT_EQ(results.front().name, "matmul"); // variant speedup 1.2 + 0.6 * 2
  EXPECT_NEAR(results.front().speedup, 2.4, 1e-9);
}

TEST_F(SeededStore, StateStatisticsSumTheRecordedEvidence) {
  auto data = load_report_data(dir_);
  ASSERT_TRUE(data.has_value());
  uint64_t attempts = 0, successes = 0;
  for (const auto &st : state_stats(*data))
    attempts += st.attempts, successes += st.successes;
  EXPECT_GT(attempts, 0u);
  EXPECT_EQ(attempts, 3 * successes); // the seeding records 3 attempts per success
}

TEST_F(SeededStore, PageDrawsEveryChartWithItsPoints) {
  auto data = load_report_data(dir_);
  ASSERT_TRUE(data.has_value());
  std::string html = render_html(*data, "now");
  EXPECT_EQ(count(html, "<svg"), 4u); // speedups, roofline, trajectories, states
  size_t states_with_attempts = 0;
  for (const auto &st : state_stats(*data))
    states_with_attempts += st.attempts > 0;
  EXPECT_EQ(count(html, "<rect class=\"bar\""), 4u + states_with_attempts);
  // 6 trajectories x 4 steps on the trajectory chart, validated steps on the roofline.
  EXPECT_EQ(roofline_point_count(*data), 6u * 2);
  EXPECT_EQ(count(html, "<circle class=\"point\""), 6u * 4 + 6u * 2);
  EXPECT_NE(html.find("matmul"), std::string::npos);
}

TEST_F(SeededStore, PageLoadsNothingFromOutside) {
  auto data = load_report_data(dir_);
  ASSERT_TRUE(data.has_value());
  std::string html = render_html(*data, "now");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  // The only URL is the SVG namespace name, which is never fetched.
  EXPECT_EQ(count(html, "http"), count(html, "http://www.w3.org/2000/svg") + count(html, "http-equiv"));
}

TEST_F(SeededStore, JsonHasStepsInOrder) {
  auto data = load_report_data(dir_);
  ASSERT_TRUE(data.has_value());
  auto j = report_json(*data);
  ASSERT_EQ(j["trajectories"].size(), 6u);
  ASSERT_EQ(j["trajectories"][0]["steps"].size(), 4u);
  EXPECT_EQ(j["trajectories"][0]["steps"][1]["compiled"], false);
  EXPECT_EQ(j["variants"].size(), 3u);
  EXPECT_EQ(j["kernels"].size(), 4u);
}

TEST_F(SeededStore, RegistryKernelsNeverTriedAreListedButNotCharted) {
  Status s = testing::seed_store(dir_, testing::SeedCounts{6, 3, 4}); // kernels 4 and 5: registry only
  ASSERT_TRUE(s.has_value()) << s.error().message;
  auto data = load_report_data(dir_);
  ASSERT_TRUE(data.has_value());
  auto results = kernel_results(*data);
  ASSERT_EQ(results.size(), 6u);
  EXPECT_EQ(results.back().attempts, 0u);
  EXPECT_FALSE(results.back().stored);
  std::string chart = speedup_chart(results);
  EXPECT_EQ(count(chart, "<rect class=\"bar\""), 4u);
  std::string html = render_html(*data, "now");
  EXPECT_NE(html.find("<td>transpose</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>stencil5</td>"), std::string::npos);
}

TEST(Report, EmptyDirectoryGivesTheSeedKbAndAnExplainingPage) {
  auto dir = make_temp_dir("kbcc-report-empty");
  ASSERT_TRUE(dir.has_value());
  auto data = load_report_data(*dir);
  ASSERT_TRUE(data.has_value()) << data.error().message;
  EXPECT_FALSE(data->store_found);
  EXPECT_TRUE(data->policy_is_seed);
  EXPECT_FALSE(data->policy.optimizations.empty());
  std::string html = render_html(*data, "now");
  EXPECT_NE(html.find("No store under this KBCC_DIR yet"), std::string::npos);
  EXPECT_EQ(count(html, "<circle class=\"point\""), 0u);
  remove_all(*dir);
}

} // namespace
} // namespace kbcc::report
