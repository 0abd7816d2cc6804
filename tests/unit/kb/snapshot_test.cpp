#include "kb/snapshot.h"
#include "support/fs.h"
#include "test_dir.h"

#include <gtest/gtest.h>

namespace kbcc::kb {
namespace {

cache::VariantRecord variant(const std::string &hash, const std::string &arch) {
  cache::VariantRecord r;
  r.kernel_hash = hash;
  r.arch = arch;
  r.source = "__global__ void k() { /* " + hash + arch + " */ }";
  r.validation = {3, 0, 1e-6, "clean", ""};
  r.timing = {10, 0.1, 5, 0.1, 20, "GPU", "drv"};
  return r;
}

std::unique_ptr<cache::Env> env_with_variants(const std::string &dir) {
  auto env = cache::Env::open(dir);
  EXPECT_TRUE(env);
  cache::VariantStore vs(**env);
  for (const char *a : {"sm_80", "sm_90"})
    for (const char *h : {"11", "22"})
      EXPECT_TRUE(vs.put(variant(h, a)));
  return std::move(*env);
}

TEST(Snapshot, SameContentSameIdAcrossStores) {
  test::TempDir d1, d2;
  auto e1 = env_with_variants(d1.path());
  auto e2 = env_with_variants(d2.path());
  auto s1 = create_snapshot(*e1, {"sm_90"});
  auto s2 = create_snapshot(*e2, {"sm_90"});
  ASSERT_TRUE(s1 && s2);
  EXPECT_EQ(s1->id, s2->id);
  EXPECT_EQ(snapshot_text(*s1), snapshot_text(*s2));
  EXPECT_EQ(s1->variants.size(), 2u);
  EXPECT_NE(s1->find("22", "sm_90"), nullptr);
  EXPECT_EQ(s1->find("22", "sm_80"), nullptr);
  auto all = create_snapshot(*e1, {});
  ASSERT_TRUE(all);
  EXPECT_EQ(all->variants.size(), 4u);
  EXPECT_EQ(all->archs, (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_NE(all->id, s1->id);
}

TEST(Snapshot, WriteLoadVerify) {
  test::TempDir d;
  auto env = env_with_variants(d.path());
  auto s = create_snapshot(*env, {});
  ASSERT_TRUE(s);
  std::string file = d.path() + "/snap.json";
  ASSERT_TRUE(write_file_atomic(file, snapshot_text(*s)));
  auto back = load_snapshot(file);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->id, s->id);
  EXPECT_EQ(back->variants.size(), 4u);
  auto policy = policy_from_json(back->policy, file);
  ASSERT_TRUE(policy) << policy.error().message;
}

TEST(Snapshot, TamperedContentIsRefusedNamingTheFile) {
  test::TempDir d;
  auto env = env_with_variants(d.path());
  auto s = create_snapshot(*env, {});
  ASSERT_TRUE(s);
  std::string text = snapshot_text(*s);
  auto pos = text.find("/* 11sm_90 */");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 13, "/* 11sm_9X */");
  std::string file = d.path() + "/bad.json";
  ASSERT_TRUE(write_file_atomic(file, text));
  auto back = load_snapshot(file);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().code, kErrBadSnapshot);
  EXPECT_NE(back.error().message.find(file), std::string::npos);
  EXPECT_NE(back.error().message.find("does not match"), std::string::npos);
  ASSERT_TRUE(write_file_atomic(file, "{}"));
  EXPECT_EQ(load_snapshot(file).error().code, kErrBadSnapshot);
  EXPECT_EQ(load_snapshot(d.path() + "/missing.json").error().code, kErrBadSnapshot);
}

TEST(Snapshot, LockFileLookupStopsAtTheRepositoryRoot) {
  test::TempDir d;
  std::string root = d.path() + "/proj", sub = root + "/src/deep";
  ASSERT_TRUE(make_dirs(sub));
  EXPECT_EQ(find_pinned_snapshot("", sub), "");
  ASSERT_TRUE(write_file_atomic(d.path() + "/kbcc.lock", "{}")); // above the repo root
  ASSERT_TRUE(make_dirs(root + "/.git"));
  EXPECT_EQ(find_pinned_snapshot("", sub), "");
  ASSERT_TRUE(write_file_atomic(root + "/kbcc.lock", "{}"));
  EXPECT_EQ(find_pinned_snapshot("", sub), real_path(root) + "/kbcc.lock");
  EXPECT_EQ(find_pinned_snapshot("/x/snap.json", sub), "/x/snap.json");
}

} // namespace
} // namespace kbcc::kb
