#include "launch/expr.h"
#include "scope.h"

#include <gtest/gtest.h>

namespace kbcc::launch {
namespace {

int64_t eval(const std::string &text, const Scope &s) {
  auto e = parse_expr(text);
  EXPECT_TRUE(e) << (e ? "" : e.error().message);
  auto v = evaluate(**e, s);
  EXPECT_TRUE(v) << (v ? "" : v.error().message);
  return v ? *v : -999;
}

TEST(Expr, PrecedenceAndAssociativity) {
  test::MapScope s;
  EXPECT_EQ(eval("1 + 2 * 3", s), 7);
  EXPECT_EQ(eval("(1 + 2) * 3", s), 9);
  EXPECT_EQ(eval("10 - 3 - 2", s), 5);
  EXPECT_EQ(eval("100 / 10 / 5", s), 2);
  EXPECT_EQ(eval("-3 + 5", s), 2);
  EXPECT_EQ(eval("1 < 2 && 3 >= 3 || 0", s), 1);
  EXPECT_EQ(eval("!(4 % 2 == 0)", s), 0);
}

TEST(Expr, FunctionsAndNames) {
  test::MapScope s;
  s.values = {{"grid.x", 32}, {"block.x", 128}, {"rows", 4096}};
  s.pointers = {{"x", 0x1000}, {"y", 0x1004}};
  EXPECT_EQ(eval("ceil_div(grid.x * block.x, 8)", s), 512);
  EXPECT_EQ(eval("ceil_div(7, 2)", s), 4);
  EXPECT_EQ(eval("ceil_div(-7, 2)", s), -3);
  EXPECT_EQ(eval("min(rows, 10) + max(rows, 10)", s), 4106);
  EXPECT_EQ(eval("aligned(x, 16)", s), 1);
  EXPECT_EQ(eval("aligned(y, 16)", s), 0);
  EXPECT_EQ(eval("distinct(x, y)", s), 1);
  EXPECT_EQ(eval("distinct(y, y)", s), 0);
  EXPECT_EQ(eval("rows <= grid.x * block.x", s), 1);
}

TEST(Expr, DivisionByZeroOverflowAndUnknownNamesFail) {
  test::MapScope s;
  s.values = {{"n", 0}};
  for (const char *text : {"1 / n", "5 % n", "ceil_div(1, n)", "9223372036854775807 + 1", "missing + 1"}) {
    auto e = parse_expr(text);
    ASSERT_TRUE(e) << text;
    EXPECT_FALSE(evaluate(**e, s)) << text;
  }
  // Short-circuit: the failing side is not evaluated.
  EXPECT_EQ(eval("n != 0 && 1 / n == 1", s), 0);
}

TEST(Expr, SyntaxErrorsNameThePosition) {
  for (const char *text :
       {"1 +", "(1", "foo(1, 2)", "aligned(1, 16)", "aligned(x, 12)", "distinct(x, 1)", "1 $ 2", "min(1)"}) {
    auto e = parse_expr(text);
    ASSERT_FALSE(e) << text;
    EXPECT_NE(e.error().message.find(text), std::string::npos) << e.error().message;
  }
}

TEST(Expr, CanonicalTextRoundTrips) {
  for (const char *text : {"ceil_div(grid.x*block.x,8)", "a-(b-c)", "(a-b)-c", "-(a+b)*c", "x%4==0&&aligned(p,16)",
                           "!(a<b)", "distinct(p,q)&&aligned(q,8)"}) {
    auto e = parse_expr(text);
    ASSERT_TRUE(e) << text;
    std::string canon = to_string(**e);
    auto again = parse_expr(canon);
    ASSERT_TRUE(again) << canon;
    EXPECT_EQ(to_string(**again), canon);
  }
  EXPECT_EQ(to_string(**parse_expr("a-(b-c)")), "a - (b - c)");
  EXPECT_EQ(to_string(**parse_expr("(a-b)-c")), "a - b - c");
}

TEST(Expr, SubstituteAndCollect) {
  auto e = *parse_expr("ceil_div(grid.x, 2) + aligned(p, 4) + distinct(p, q)");
  auto g = *parse_expr("grid.x * 3");
  auto s = substitute(e, {{"grid.x", g}, {"q", g}});
  EXPECT_EQ(to_string(*s), "ceil_div(grid.x * 3, 2) + aligned(p, 4) + distinct(p, q)");
  std::set<std::string> values, pointers;
  collect_names(*s, values, pointers);
  EXPECT_EQ(values, (std::set<std::string>{"grid.x"}));
  EXPECT_EQ(pointers, (std::set<std::string>{"p", "q"}));
}

} // namespace
} // namespace kbcc::launch
