#include "report/svg.h"

#include <gtest/gtest.h>
#include <regex>

namespace kbcc::report {
namespace {

size_t count(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1))
    ++n;
  return n;
}

TEST(Svg, EscapesMarkup) {
  EXPECT_EQ(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(escape("scale<float>"), "scale&lt;float&gt;");
}

TEST(Svg, LinearTicksAreNiceSteps) {
  auto t = axis_ticks(Axis{"", 0, 10});
  ASSERT_EQ(t.size(), 6u);
  EXPECT_DOUBLE_EQ(t.front(), 0);
  EXPECT_DOUBLE_EQ(t[1], 2);
  EXPECT_DOUBLE_EQ(t.back(), 10);
}

TEST(Svg, LogTicksArePowersOfTen) {
  auto t = axis_ticks(Axis{"", 0.01, 100, true});
  ASSERT_EQ(t.size(), 5u);
  EXPECT_DOUBLE_EQ(t.front(), 0.01);
  EXPECT_DOUBLE_EQ(t.back(), 100);
  auto dense = axis_ticks(Axis{"", 1, 10, true});
  EXPECT_EQ(dense.size(), 4u); // 1 2 5 10
}

TEST(Svg, TickLabelsAreShort) {
  EXPECT_EQ(tick_label(0), "0");
  EXPECT_EQ(tick_label(0.5), "0.5");
  EXPECT_EQ(tick_label(2000), "2k");
  EXPECT_EQ(tick_label(0.001), "1e-03");
}

TEST(Svg, PixelMappingIsMonotonicAndClamped) {
  Chart c("t", Axis{"x", 0, 10}, Axis{"y", 1, 100, true}, 640, 380);
  EXPECT_LT(c.px(1), c.px(5));
  EXPECT_GT(c.py(1), c.py(10)); // SVG y grows downwards
  EXPECT_DOUBLE_EQ(c.px(-5), c.px(0));
  EXPECT_DOUBLE_EQ(c.py(1e6), c.py(100));
  EXPECT_NEAR(c.py(10), (c.py(1) + c.py(100)) / 2, 1e-9); // log axis: 10 is halfway
}

TEST(Svg, ChartHasOneCirclePerPointWithData) {
  Chart c("speed <1>", Axis{"x", 0, 4}, Axis{"y", 0, 4});
  c.point(1, 2, "#000", "a<b");
  c.point(3, 1, "#000", "b", true);
  c.line({{0, 0}, {4, 4}}, "#f00");
  std::string s = c.str();
  EXPECT_EQ(count(s, "<circle class=\"point\""), 2u);
  EXPECT_NE(s.find("data-x=\"1\" data-y=\"2\""), std::string::npos);
  EXPECT_NE(s.find("<title>a&lt;b</title>"), std::string::npos);
  EXPECT_NE(s.find("speed &lt;1&gt;"), std::string::npos);
  EXPECT_EQ(count(s, "<polyline"), 1u);
  EXPECT_EQ(s.rfind("</svg>\n"), s.size() - 7);
}

TEST(Svg, BarChartDrawsEveryBarAndTheReference) {
  std::vector<Bar> bars = {{"k1", 1.5, "#0a0", ""}, {"k2", 3.0, "#0a0", ""}, {"k3", 0.9, "#aaa", ""}};
  std::string s = bar_chart("speedups", "x", bars, 1.0);
  EXPECT_EQ(count(s, "class=\"bar\""), 3u);
  EXPECT_EQ(count(s, "class=\"reference\""), 1u);
  // The longest bar belongs to the largest value.
  std::regex width("data-x=\"k2\"");
  EXPECT_TRUE(std::regex_search(s, width));
  EXPECT_EQ(bar_chart("empty", "x", {}).find("class=\"bar\""), std::string::npos);
  EXPECT_NE(bar_chart("empty", "x", {}).find("no data yet"), std::string::npos);
}

} // namespace
} // namespace kbcc::report
