#include "cache/env.h"
#include "support/fs.h"
#include "test_dir.h"

#include <gtest/gtest.h>
#include <lmdb.h>
#include <sys/mount.h>
#include <unistd.h>

namespace kbcc::cache {
namespace {

using test::TempDir;

std::unique_ptr<Env> open_ok(const std::string &dir, EnvOptions o = {}) {
  auto env = Env::open(dir, o);
  EXPECT_TRUE(env.has_value()) << (env ? "" : env.error().message);
  return env ? std::move(*env) : nullptr;
}

Status put(Env &env, const std::string &table, const std::string &k, const std::string &v) {
  return env.write([&](Txn &t) { return t.put(table, k, v); });
}

std::optional<std::string> get(Env &env, const std::string &table, const std::string &k) {
  std::optional<std::string> out;
  EXPECT_TRUE(env.read([&](Txn &t) -> Status {
    auto v = t.get(table, k);
    if (!v) return v.error();
    out = *v;
    return {};
  }));
  return out;
}

TEST(Env, PutGetRemoveAcrossReopen) {
  TempDir d;
  {
    auto env = open_ok(d.path());
    ASSERT_TRUE(put(*env, kVariantTable, "a/sm_90", "one"));
    ASSERT_TRUE(put(*env, kVariantTable, "b/sm_90", "two"));
  }
  auto env = open_ok(d.path());
  EXPECT_EQ(get(*env, kVariantTable, "a/sm_90"), "one");
  EXPECT_EQ(get(*env, kVariantTable, "zzz"), std::nullopt);
  std::vector<std::string> keys;
  ASSERT_TRUE(env->read([&](Txn &t) {
    return t.for_each(kVariantTable, "b", [&](std::string_view k, std::string_view) {
      keys.emplace_back(k);
      return true;
    });
  }));
  EXPECT_EQ(keys, std::vector<std::string>{"b/sm_90"});
  ASSERT_TRUE(env->write([&](Txn &t) -> Status {
    auto r = t.remove(kVariantTable, "a/sm_90");
    EXPECT_TRUE(r && *r);
    return {};
  }));
  EXPECT_EQ(get(*env, kVariantTable, "a/sm_90"), std::nullopt);
}

TEST(Env, FailedCallbackAbortsTheTransaction) {
  TempDir d;
  auto env = open_ok(d.path());
  Status st = env->write([&](Txn &t) -> Status {
    EXPECT_TRUE(t.put(kRegistryTable, "k", "v"));
    return make_error("stop");
  });
  EXPECT_FALSE(st);
  EXPECT_EQ(get(*env, kRegistryTable, "k"), std::nullopt);
}

TEST(Env, ReadOnlyOpenOfMissingStoreIsAbsent) {
  TempDir d;
  auto env = Env::open(d.path() + "/nothing", {.read_only = true});
  ASSERT_FALSE(env);
  EXPECT_EQ(env.error().code, kErrAbsent);
}

TEST(Env, ReadOnlyOpenOfAnOlderStoreLacksOnlyTheNewTables) {
  TempDir d;
  {
    auto env = open_ok(d.path());
    ASSERT_TRUE(env->write([](Txn &t) { return t.put(kRegistryTable, "k", "v"); }));
  }
  // A table this store was never opened with, as a table added by a later kbcc.
  auto env = open_ok(d.path(), {.read_only = true, .extra_tables = {"added-later"}});
  ASSERT_TRUE(env);
  std::optional<std::string> v;
  ASSERT_TRUE(env->read([&](Txn &t) -> Status {
    auto got = t.get(kRegistryTable, "k");
    if (!got) return got.error();
    v = *got;
    return {};
  }));
  EXPECT_EQ(v, "v");
  Status missing = env->read([](Txn &t) -> Status {
    auto got = t.get("added-later", "k");
    return got ? Status::ok() : Status(got.error());
  });
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("added-later"), std::string::npos) << missing.error().message;
}

TEST(Env, GarbageFileIsCorruptAndNamed) {
  TempDir d;
  ASSERT_TRUE(make_dirs(store_path(d.path())));
  ASSERT_TRUE(write_file_atomic(store_path(d.path()) + "/data.mdb", std::string(65536, 'x')));
  auto env = Env::open(d.path());
  ASSERT_FALSE(env);
  EXPECT_EQ(env.error().code, kErrCorrupt);
  EXPECT_NE(env.error().message.find(store_path(d.path()) + "/data.mdb"), std::string::npos) << env.error().message;
}

TEST(Env, ForeignVersionIsRefusedWithTheFile) {
  TempDir d;
  {
    auto env = open_ok(d.path());
    ASSERT_TRUE(put(*env, kMetaTable, "version", "999"));
  }
  auto env = Env::open(d.path());
  ASSERT_FALSE(env);
  EXPECT_EQ(env.error().code, kErrVersion);
  EXPECT_NE(env.error().message.find("data.mdb"), std::string::npos);
  EXPECT_NE(env.error().message.find("999"), std::string::npos);
}

TEST(Env, ForeignLmdbDatabaseIsNotAdopted) {
  TempDir d;
  std::string path = store_path(d.path());
  ASSERT_TRUE(make_dirs(path));
  MDB_env *e;
  ASSERT_EQ(mdb_env_create(&e), 0);
  mdb_env_set_maxdbs(e, 4);
  ASSERT_EQ(mdb_env_open(e, path.c_str(), 0, 0644), 0);
  MDB_txn *t;
  MDB_dbi dbi;
  ASSERT_EQ(mdb_txn_begin(e, nullptr, 0, &t), 0);
  ASSERT_EQ(mdb_dbi_open(t, "someone_elses", MDB_CREATE, &dbi), 0);
  ASSERT_EQ(mdb_txn_commit(t), 0);
  mdb_env_close(e);
  auto env = Env::open(d.path());
  ASSERT_FALSE(env);
  EXPECT_EQ(env.error().code, kErrVersion);
  EXPECT_NE(env.error().message.find("not a kbcc store"), std::string::npos);
}

TEST(Env, MapFullIsAnErrorAndTheStoreStaysUsable) {
  TempDir d;
  auto env = open_ok(d.path(), {.max_size = 64 * 1024});
  Status st = put(*env, kVariantTable, "huge", std::string(8 << 20, 'h'));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, kErrFull);
  EXPECT_NE(st.error().message.find("data.mdb"), std::string::npos);
  EXPECT_TRUE(put(*env, kVariantTable, "small", "ok"));
  EXPECT_EQ(get(*env, kVariantTable, "small"), "ok");
}

TEST(Env, SizeLimitEvictsLeastRecentlyUsed) {
  TempDir d;
  const uint64_t limit = 512 * 1024;
  auto env = open_ok(d.path(), {.max_size = limit});
  std::string value(6000, 'v');
  // "keep" is used after every insert, so it is the most recently used.
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(env->write([&](Txn &t) -> Status {
      if (auto s = t.put(kVariantTable, "k" + std::to_string(1000 + i), value); !s) return s;
      if (i == 0)
        if (auto s = t.put(kVariantTable, "keep", value); !s) return s;
      return t.touch(kVariantTable, "keep");
    })) << i;
  }
  auto info = env->info();
  ASSERT_TRUE(info);
  EXPECT_LE(info->used_bytes, limit);
  EXPECT_TRUE(get(*env, kVariantTable, "keep").has_value());
  EXPECT_TRUE(get(*env, kVariantTable, "k1199").has_value());  // newest survives
  EXPECT_FALSE(get(*env, kVariantTable, "k1000").has_value()); // oldest evicted
  EXPECT_TRUE(get(*env, kPolicyTable, "policy") == std::nullopt);
}

TEST(Env, PolicyAndMetaAreNeverEvicted) {
  TempDir d;
  auto env = open_ok(d.path(), {.max_size = 256 * 1024});
  ASSERT_TRUE(put(*env, kPolicyTable, "policy", std::string(20000, 'p')));
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(put(*env, kTrajectoryTable, "t" + std::to_string(i), std::string(5000, 't')));
  EXPECT_TRUE(get(*env, kPolicyTable, "policy").has_value());
  auto ev = env->evict_to(0);
  ASSERT_TRUE(ev);
  EXPECT_TRUE(get(*env, kPolicyTable, "policy").has_value());
  EXPECT_TRUE(get(*env, kMetaTable, "version").has_value());
}

TEST(Env, InfoCountsTables) {
  TempDir d;
  auto env = open_ok(d.path());
  ASSERT_TRUE(put(*env, kRegistryTable, "h1", "x"));
  ASSERT_TRUE(put(*env, kRegistryTable, "h2", "y"));
  auto info = env->info();
  ASSERT_TRUE(info);
  bool found = false;
  for (const auto &[name, n] : info->tables)
    if (name == kRegistryTable) {
      EXPECT_EQ(n, 2u);
      found = true;
    }
  EXPECT_TRUE(found);
  EXPECT_GT(info->used_bytes, 0u);
  EXPECT_GT(info->file_bytes, 0u);
}

// A tmpfs mounted at `dir` for one test (needs root and mount: `mounted`
// is false otherwise); unmounted when it goes out of scope.
struct Tmpfs {
  std::string dir;
  bool mounted = false;
  Tmpfs(std::string where, const char *options) : dir(std::move(where)) {
    mounted = make_dirs(dir) && geteuid() == 0 && mount("tmpfs", dir.c_str(), "tmpfs", 0, options) == 0;
  }
  ~Tmpfs() {
    if (mounted) umount(dir.c_str());
  }
};

// A real full disk: a 1 MiB tmpfs (needs root and mount; skipped otherwise).
TEST(Env, FullDiskIsAStoreFullError) {
  TempDir d;
  Tmpfs fs(d.path() + "/mnt", "size=1m");
  if (!fs.mounted) GTEST_SKIP() << "cannot mount a tmpfs here";
  const std::string &mnt = fs.dir;
  {
    auto env = open_ok(mnt);
    ASSERT_TRUE(env);
    Status last;
    int i = 0;
    for (; i < 400 && last; ++i)
      last = put(*env, kRegistryTable, "k" + std::to_string(i), std::string(16384, 'd'));
    EXPECT_FALSE(last);
    if (!last) {
      EXPECT_EQ(last.error().code, kErrFull) << last.error().message;
    }
    EXPECT_GT(i, 1);
  }
  // After the failure the store opens and what was committed reads back.
  auto again = Env::open(mnt);
  if (again) {
    EXPECT_TRUE(get(**again, kRegistryTable, "k0").has_value());
  } else {
    EXPECT_EQ(again.error().code, kErrFull) << again.error().message;
  }
}

// A store on a read-only file system (a team's shared, mounted store): a
// read-only Env opens and reads it; a read-write one fails naming it.
TEST(Env, StoreOnAReadOnlyFileSystemOpensReadOnly) {
  TempDir d;
  Tmpfs fs(d.path() + "/mnt", "size=8m");
  if (!fs.mounted) GTEST_SKIP() << "cannot mount a tmpfs here";
  const std::string &mnt = fs.dir;
  {
    auto env = open_ok(mnt);
    ASSERT_TRUE(env);
    ASSERT_TRUE(put(*env, kRegistryTable, "k", "v"));
  }
  ASSERT_EQ(mount(nullptr, mnt.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0);
  EnvOptions ro;
  ro.read_only = true;
  auto env = open_ok(mnt, ro);
  ASSERT_TRUE(env);
  EXPECT_EQ(get(*env, kRegistryTable, "k"), "v");
  auto rw = Env::open(mnt);
  ASSERT_FALSE(rw);
  EXPECT_NE(rw.error().message.find(mnt), std::string::npos) << rw.error().message;
}

} // namespace
} // namespace kbcc::cache
