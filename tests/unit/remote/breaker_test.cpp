// The circuit breaker and the guard: a dead or slow remote costs a build at
// most one timeout per process, one log line, and nothing once the breaker is open.
#include "remote/breaker.h"
#include "remote/store.h"
#include "servers.h"
#include "support/fs.h"
#include "support/log.h"

#include <gtest/gtest.h>
#include <sstream>

namespace kbcc::remote {
namespace {

using namespace std::chrono_literals;
using test::Server;

int count_lines(const std::string &path, const std::string &needle) {
  auto text = read_file(path);
  if (!text) return 0;
  std::istringstream in(*text);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) ++n;
  return n;
}

TEST(Breaker, OpensAfterFailuresAndClosesOnSuccess) {
  std::string file = test::temp_dir() + "/breaker";
  CircuitBreaker b(file, BreakerPolicy{3, 60s});
  EXPECT_TRUE(b.allow());
  EXPECT_FALSE(b.record_failure());
  EXPECT_FALSE(b.record_failure());
  EXPECT_TRUE(CircuitBreaker(file, BreakerPolicy{3, 60s}).allow());
  EXPECT_TRUE(b.record_failure());
  // Another process (another object on the same file) sees it open.
  CircuitBreaker other(file, BreakerPolicy{3, 60s});
  EXPECT_FALSE(other.allow());
  EXPECT_GT(other.open_until_ms(), 0);
  other.record_success();
  EXPECT_TRUE(b.allow());
  EXPECT_EQ(b.failures(), 0);
}

TEST(Breaker, HalfOpensAfterTheInterval) {
  std::string file = test::temp_dir() + "/breaker";
  CircuitBreaker b(file, BreakerPolicy{1, 1s});
  EXPECT_TRUE(b.record_failure());
  EXPECT_FALSE(b.allow());
  std::this_thread::sleep_for(1100ms);
  EXPECT_TRUE(b.allow());
  EXPECT_TRUE(b.record_failure()); // the trial request failed: open again
  EXPECT_FALSE(b.allow());
}

TEST(Breaker, GarbageStateFileReadsAsClosed) {
  std::string file = test::temp_dir() + "/breaker";
  ASSERT_TRUE(write_file_atomic(file, "not numbers"));
  EXPECT_TRUE(CircuitBreaker(file, {}).allow());
}

// Successive "processes" (guards) of one build against a slow remote.
TEST(Breaker, SlowRemoteIsSkippedAfterThreeProcesses) {
  Server slow(Server::kSlow);
  KBCC_REQUIRE_SERVER(slow);
  std::string dir = test::temp_dir();
  std::string log = dir + "/kbcc.log";
  set_log_path(log);
  GuardOptions o;
  o.breaker_file = breaker_file(dir, slow.url());
  for (int process = 0; process < 5; ++process) {
    auto inner = make_store(slow.url(), StoreOptions{150ms});
    ASSERT_TRUE(inner);
    auto store = guard_store(std::move(*inner), o);
    auto t0 = std::chrono::steady_clock::now();
    for (int lookup = 0; lookup < 4; ++lookup)
      EXPECT_FALSE(store->get("variants/k-sm_90/x"));
    auto took = std::chrono::steady_clock::now() - t0;
    if (process < 3) {
      EXPECT_LT(took, 1000ms) << "one timeout per process, not one per lookup";
    } else {
      EXPECT_LT(took, 100ms) << "breaker open: no network at all";
    }
  }
  EXPECT_EQ(count_lines(log, "remote unavailable, continuing without it"), 3);
  EXPECT_EQ(count_lines(log, "circuit breaker open for 60 s"), 1);
  EXPECT_EQ(count_lines(log, "skipped: circuit breaker open after 3 failures"), 2);
  set_log_path("");
}

TEST(Breaker, CommandsTryEvenWhenOpen) {
  Server redis(Server::kRedis);
  KBCC_REQUIRE_SERVER(redis);
  std::string dir = test::temp_dir();
  set_log_path(dir + "/kbcc.log");
  GuardOptions o;
  o.breaker_file = breaker_file(dir, redis.url());
  CircuitBreaker(o.breaker_file, BreakerPolicy{1, 60s}).record_failure();
  auto build = guard_store(make_store(redis.url(), {}).value(), o);
  EXPECT_FALSE(build->check("kb/a"));
  o.skip_while_open = false;
  auto command = guard_store(make_store(redis.url(), {}).value(), o);
  auto r = command->check("kb/a");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(CircuitBreaker(o.breaker_file, {}).allow()) << "a success closes the breaker";
  set_log_path("");
}

} // namespace
} // namespace kbcc::remote
