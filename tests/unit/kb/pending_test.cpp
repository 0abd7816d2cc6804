// The units builds left for a later registration (kb/pending.h).
#include "kb/pending.h"
#include "test_dir.h"

#include <gtest/gtest.h>

namespace kbcc::kb {
namespace {

TEST(PendingUnits, ARebuildReplacesItsRecordAndRemovedOnesAreGone) {
  test::TempDir d;
  auto env = cache::Env::open(d.path());
  ASSERT_TRUE(env) << env.error().message;
  PendingUnits p(**env);
  ASSERT_TRUE(p.put("a", {{"source", "a.cu"}}, 10));
  ASSERT_TRUE(p.put("b", {{"source", "b.cu"}}, 11));
  ASSERT_TRUE(p.put("a", {{"source", "a.cu"}, {"again", true}}, 12));
  EXPECT_EQ(*p.count(), 2u);
  auto all = p.list();
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].key, "a");
  EXPECT_TRUE((*all)[0].unit.value("again", false));
  EXPECT_EQ((*all)[0].recorded, 12);
  ASSERT_TRUE(p.remove("a"));
  ASSERT_TRUE(p.remove("missing"));
  EXPECT_EQ(*p.count(), 1u);
}

TEST(PendingUnits, ARecordThatIsNotAUnitIsNamed) {
  test::TempDir d;
  auto env = cache::Env::open(d.path());
  ASSERT_TRUE(env);
  ASSERT_TRUE((*env)->write([](cache::Txn &txn) { return txn.put(cache::kPendingTable, "k", "not json"); }));
  auto all = PendingUnits(**env).list();
  ASSERT_FALSE(all);
  EXPECT_EQ(all.error().code, cache::kErrBadRecord);
  EXPECT_NE(all.error().message.find("pending unit k"), std::string::npos) << all.error().message;
}

} // namespace
} // namespace kbcc::kb
