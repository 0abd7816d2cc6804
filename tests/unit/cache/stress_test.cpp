// Many processes writing one store at once, and writers killed with SIGKILL
// at random points: no lost rows, no lost increments, always readable.
#include "cache/env.h"
#include "test_dir.h"

#include <gtest/gtest.h>
#include <random>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace kbcc::cache {
namespace {

using test::TempDir;

// Child body: `rows` transactions, each adding one row and incrementing a
// shared counter (read-modify-write). Returns the process exit code.
int writer(const std::string &dir, int id, int rows) {
  auto env = Env::open(dir);
  if (!env) return 2;
  for (int i = 0; i < rows; ++i) {
    Status st = (*env)->write([&](Txn &t) -> Status {
      if (auto s = t.put(kRegistryTable, "w" + std::to_string(id) + "-" + std::to_string(i), std::string(200, 'r')); !s)
        return s;
      auto c = t.get(kMetaTable, "stress-counter");
      if (!c) return c.error();
      uint64_t n = *c ? std::stoull(**c) : 0;
      return t.put(kMetaTable, "stress-counter", std::to_string(n + 1));
    });
    if (!st) return 3;
  }
  return 0;
}

TEST(Stress, ConcurrentForkedWritersLoseNothing) {
  TempDir d;
  const int kWriters = 32, kRows = 40;
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    pid_t p = fork();
    ASSERT_GE(p, 0);
    if (p == 0) _exit(writer(d.path(), w, kRows));
    pids.push_back(p);
  }
  for (pid_t p : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(p, &status, 0), p);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  auto env = Env::open(d.path());
  ASSERT_TRUE(env);
  ASSERT_TRUE((*env)->read([&](Txn &t) -> Status {
    EXPECT_EQ(*t.count(kRegistryTable), uint64_t(kWriters * kRows));
    EXPECT_EQ(**t.get(kMetaTable, "stress-counter"), std::to_string(kWriters * kRows));
    return {};
  }));
}

// Threads of one process opening and closing their own Env of one store,
// next to a writer process: LMDB allows one handle per store per process, so
// Env::open must share it (a second handle's close would destroy the lock
// file's mutexes under the others).
TEST(Stress, ThreadsOpeningTheirOwnEnvNextToAnotherProcess) {
  TempDir d;
  const int kThreads = 8, kRounds = 25, kForkedRows = 100;
  auto held = Env::open(d.path()); // open throughout, as a long-lived caller's
  ASSERT_TRUE(held);
  pid_t other = fork();
  ASSERT_GE(other, 0);
  if (other == 0) _exit(writer(d.path(), 999, kForkedRows));
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int id = 0; id < kThreads; ++id)
    threads.emplace_back([&, id] {
      for (int round = 0; round < kRounds; ++round)
        if (writer(d.path(), id * 1000 + round, 1) != 0) ++failures[id];
    });
  for (auto &t : threads)
    t.join();
  int status = 0;
  ASSERT_EQ(waitpid(other, &status, 0), other);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
  ASSERT_TRUE((*held)->read([&](Txn &t) -> Status {
    EXPECT_EQ(*t.count(kRegistryTable), uint64_t(kThreads * kRounds + kForkedRows));
    EXPECT_EQ(**t.get(kMetaTable, "stress-counter"), std::to_string(kThreads * kRounds + kForkedRows));
    return {};
  }));
}

// Values are self-checking: "<len>:" followed by len copies of one letter.
std::string make_value(std::mt19937 &rng) {
  size_t len = 1 + rng() % 20000;
  return std::to_string(len) + ":" + std::string(len, static_cast<char>('a' + rng() % 26));
}

bool well_formed(std::string_view v) {
  auto colon = v.find(':');
  if (colon == std::string_view::npos) return false;
  size_t len = std::stoul(std::string(v.substr(0, colon)));
  auto body = v.substr(colon + 1);
  return body.size() == len && body.find_first_not_of(body[0]) == std::string_view::npos;
}

TEST(Stress, KillNineDuringWritesLeavesAReadableStore) {
  TempDir d;
  std::mt19937 rng(42);
  for (int round = 0; round < 12; ++round) {
    pid_t p = fork();
    ASSERT_GE(p, 0);
    if (p == 0) {
      std::mt19937 r(round);
      auto env = Env::open(d.path(), {.max_size = 2 << 20}); // small: eviction runs too
      if (!env) _exit(2);
      for (int i = 0;; ++i)
        (void)(*env)->write([&](Txn &t) -> Status {
          for (int k = 0; k < 4; ++k)
            if (auto s = t.put(kVariantTable, "k" + std::to_string(r() % 500), make_value(r)); !s) return s;
          return t.touch(kVariantTable, "k" + std::to_string(i % 500));
        });
    }
    usleep(20000 + rng() % 150000);
    kill(p, SIGKILL);
    int status = 0;
    waitpid(p, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    auto env = Env::open(d.path(), {.max_size = 2 << 20});
    ASSERT_TRUE(env) << env.error().message;
    size_t n = 0;
    ASSERT_TRUE((*env)->read([&](Txn &t) {
      return t.for_each(kVariantTable, "", [&](std::string_view, std::string_view v) {
        EXPECT_TRUE(well_formed(v));
        ++n;
        return true;
      });
    }));
    EXPECT_TRUE((*env)->write([&](Txn &t) { return t.put(kVariantTable, "after", "3:aaa"); })) << round;
  }
}

} // namespace
} // namespace kbcc::cache
