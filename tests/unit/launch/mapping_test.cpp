#include "launch/mapping.h"
#include "scope.h"

#include <gtest/gtest.h>

namespace kbcc::launch {
namespace {

LaunchMapping warp_per_row() {
  LaunchMapping m;
  m.grid = {"ceil_div(grid.x * block.x, 8)", "1", "1"};
  m.block = {"256", "1", "1"};
  m.shared = "0";
  m.preconditions = {"grid.y == 1 && block.y == 1", "rows <= grid.x * block.x", "aligned(x, 16)"};
  return m;
}

std::vector<ParamInfo> params() {
  return {{"rows", ParamInfo::Kind::Signed, 4}, {"x", ParamInfo::Kind::Pointer, 8}, {"f", ParamInfo::Kind::Other, 4}};
}

TEST(Mapping, AppliesToALaunch) {
  test::MapScope s;
  s.values = {{"rows", 4096}};
  s.pointers = {{"x", 0x7f0000000000}};
  Launch l;
  l.grid[0] = 32;
  l.block[0] = 128;
  auto a = apply_mapping(warp_per_row(), l, s);
  ASSERT_TRUE(a);
  ASSERT_TRUE(a->ok) << a->failed;
  EXPECT_EQ(a->launch.grid[0], 512u);
  EXPECT_EQ(a->launch.block[0], 256u);
  EXPECT_EQ(a->launch.shared, 0u);
}

TEST(Mapping, FailingPreconditionIsNamed) {
  test::MapScope s;
  s.values = {{"rows", 4096}};
  s.pointers = {{"x", 0x7f0000000004}};
  Launch l;
  l.grid[0] = 32;
  l.block[0] = 128;
  auto a = apply_mapping(warp_per_row(), l, s);
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->ok);
  EXPECT_EQ(a->failed, "aligned(x, 16)");
}

TEST(Mapping, InvalidMappedLaunchIsRefused) {
  LaunchMapping m;
  m.block = {"block.x * 16", "1", "1"};
  test::MapScope s;
  Launch l;
  l.block[0] = 128;
  auto a = apply_mapping(m, l, s);
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->ok);
  EXPECT_NE(a->failed.find("block.x"), std::string::npos);
}

TEST(Mapping, CheckRefusesUnknownNamesAndWrongKinds) {
  EXPECT_TRUE(check_mapping(warp_per_row(), params()));
  LaunchMapping m = warp_per_row();
  m.preconditions.push_back("cols > 0");
  auto s = check_mapping(m, params());
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("'cols'"), std::string::npos);
  m = warp_per_row();
  m.grid[0] = "x";
  EXPECT_FALSE(check_mapping(m, params()));
  m = warp_per_row();
  m.preconditions = {"aligned(rows, 4)"};
  EXPECT_FALSE(check_mapping(m, params()));
  m = warp_per_row();
  m.shared = "f";
  EXPECT_FALSE(check_mapping(m, params()));
}

TEST(Mapping, ComposeSubstitutesTheFirstLaunch) {
  LaunchMapping first = warp_per_row();
  LaunchMapping second;
  second.block = {"block.x / 2", "block.y", "block.z"};
  second.grid = {"grid.x * 2", "grid.y", "grid.z"};
  second.preconditions = {"block.x % 2 == 0", "block.x % 3 == 0", "grid.y == 1"};
  auto c = compose(first, second);
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->block[0], "256 / 2");
  EXPECT_EQ(c->grid[0], "ceil_div(grid.x * block.x, 8) * 2");
  // `256 % 2 == 0` and `1 == 1` hold on every launch and go; one that never holds stays.
  ASSERT_EQ(c->preconditions.size(), 4u);
  EXPECT_EQ(c->preconditions.back(), "256 % 3 == 0");
  EXPECT_TRUE(is_identity(LaunchMapping{}));
  EXPECT_FALSE(is_identity(*c));
}

TEST(Mapping, JsonRoundTripAndErrors) {
  auto back = mapping_from_json(to_json(warp_per_row()), "t.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->grid[0], "ceil_div(grid.x * block.x, 8)");
  EXPECT_EQ(back->preconditions.size(), 3u);
  nlohmann::json bad = to_json(warp_per_row());
  bad["grid"] = {"1", "1"};
  auto e = mapping_from_json(bad, "t.json");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("t.json: $.launch.grid"), std::string::npos);
  bad = to_json(warp_per_row());
  bad["block"][0] = "256 +";
  EXPECT_FALSE(mapping_from_json(bad, "t.json"));
}

} // namespace
} // namespace kbcc::launch
