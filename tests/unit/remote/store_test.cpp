// The Store backends against real servers (redis-server, nginx WebDAV) and
// the fault servers, plus the in-memory store and key validation.
#include "remote/store.h"
#include "servers.h"

#include <chrono>
#include <gtest/gtest.h>

namespace kbcc::remote {
namespace {

using test::Server;
using namespace std::chrono_literals;

// The behaviour every backend shares.
void exercise(Store &store) {
  auto missing = store.get("variants/abc-sm_90/none");
  ASSERT_TRUE(missing) << missing.error().message;
  EXPECT_FALSE(*missing);
  auto absent = store.check("variants/abc-sm_90/none");
  ASSERT_TRUE(absent);
  EXPECT_FALSE(*absent);

  std::string binary("bytes\0with\xffnul", 14);
  ASSERT_TRUE(store.put("variants/abc-sm_90/h1", binary));
  ASSERT_TRUE(store.put("variants/abc-sm_90/h2", "two"));
  ASSERT_TRUE(store.put("variants/def-sm_80/h3", "three"));
  ASSERT_TRUE(store.put("kb/alice", "kb"));

  auto got = store.get("variants/abc-sm_90/h1");
  ASSERT_TRUE(got) << got.error().message;
  ASSERT_TRUE(*got);
  EXPECT_EQ(**got, binary);
  auto there = store.check("variants/abc-sm_90/h2");
  ASSERT_TRUE(there);
  EXPECT_TRUE(*there);

  ASSERT_TRUE(store.put("variants/abc-sm_90/h2", "two again"));
  EXPECT_EQ(**store.get("variants/abc-sm_90/h2"), "two again");

  auto files = store.list("variants/abc-sm_90/");
  ASSERT_TRUE(files) << files.error().message;
  EXPECT_EQ(*files, (std::vector<std::string>{"h1", "h2"}));
  auto folders = store.list("variants/");
  ASSERT_TRUE(folders);
  EXPECT_EQ(*folders, (std::vector<std::string>{"abc-sm_90/", "def-sm_80/"}));
  auto none = store.list("captures/");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->empty());
}

TEST(RemoteStore, KeysAreValidated) {
  EXPECT_TRUE(valid_key("variants/abc-sm_90/0123"));
  EXPECT_FALSE(valid_key(""));
  EXPECT_FALSE(valid_key("/abs"));
  EXPECT_FALSE(valid_key("a/../b"));
  EXPECT_FALSE(valid_key("a b"));
  auto store = make_memory_store();
  EXPECT_FALSE(store->put("../x", "y"));
}

TEST(RemoteStore, CredentialsNeverAppearInMessages) {
  EXPECT_EQ(redact_url("https://bob:s3cret@host:8443/kb"), "https://host:8443/kb");
  EXPECT_EQ(redact_url("redis://:s3cret@host:6379/2"), "redis://host:6379/2");
  EXPECT_EQ(redact_url("http://host/a@b"), "http://host/a@b");
  auto http = make_store("https://bob:s3cret@host:8443/kb/", {});
  ASSERT_TRUE(http);
  EXPECT_EQ((*http)->location(), "https://host:8443/kb");
  auto redis = make_store("redis://:s3cret@127.0.0.1:1/0", {});
  ASSERT_TRUE(redis);
  EXPECT_EQ((*redis)->location(), "redis://127.0.0.1:1/0");
  auto r = (*redis)->get("kb/x");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message.find("s3cret"), std::string::npos) << r.error().message;
}

TEST(RemoteStore, RedisPasswordIsSent) {
  Server redis(Server::kRedis);
  KBCC_REQUIRE_SERVER(redis);
  // Without a password configured on the server, AUTH is refused: a clear error.
  auto store = make_store("redis://:pw@" + redis.url().substr(8), {});
  ASSERT_TRUE(store);
  auto r = (*store)->get("kb/x");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("AUTH on redis://127.0.0.1:"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find(":pw@"), std::string::npos);
}

TEST(RemoteStore, MemoryBackend) {
  auto store = make_memory_store();
  exercise(*store);
}

TEST(RemoteStore, UnknownSchemeIsNamed) {
  auto s = make_store("ftp://example", {});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("unknown scheme"), std::string::npos);
}

TEST(RemoteStore, RedisBackend) {
  Server redis(Server::kRedis);
  KBCC_REQUIRE_SERVER(redis);
  auto store = make_store(redis.url(), {});
  ASSERT_TRUE(store) << store.error().message;
  exercise(**store);
}

TEST(RemoteStore, WebdavBackend) {
  Server dav(Server::kWebdav);
  KBCC_REQUIRE_SERVER(dav);
  auto store = make_store(dav.url() + "/team/kbcc", {});
  ASSERT_TRUE(store) << store.error().message;
  exercise(**store);
  EXPECT_EQ((*store)->location(), dav.url() + "/team/kbcc");
}

// A server that is down: the request fails at once with a clear error.
TEST(RemoteStore, DownServerFailsFast) {
  std::string url;
  {
    Server dav(Server::kWebdav);
    KBCC_REQUIRE_SERVER(dav);
    url = dav.url();
  }
  for (const std::string &u : {url, "redis://127.0.0.1:" + url.substr(url.rfind(':') + 1)}) {
    auto store = make_store(u, {});
    ASSERT_TRUE(store);
    auto t0 = std::chrono::steady_clock::now();
    auto r = (*store)->get("kb/x");
    ASSERT_FALSE(r) << u;
    EXPECT_EQ(r.error().code, "remote-io") << r.error().message;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 400ms);
  }
}

// A server that accepts and never answers: bounded by the timeout.
TEST(RemoteStore, SlowServerTimesOut) {
  Server slow(Server::kSlow);
  KBCC_REQUIRE_SERVER(slow);
  for (const std::string &u : {slow.url(), slow.redis_url()}) {
    auto store = make_store(u, StoreOptions{200ms});
    ASSERT_TRUE(store);
    auto t0 = std::chrono::steady_clock::now();
    auto r = (*store)->get("kb/x");
    auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_FALSE(r) << u;
    EXPECT_EQ(r.error().code, "remote-timeout") << u << ": " << r.error().message;
    EXPECT_GE(took, 150ms);
    EXPECT_LT(took, 1500ms);
  }
}

// A server that answers garbage: an error, never a value.
TEST(RemoteStore, GarbageServerIsAnError) {
  Server garbage(Server::kGarbage);
  KBCC_REQUIRE_SERVER(garbage);
  for (const std::string &u : {garbage.url(), garbage.redis_url()}) {
    auto store = make_store(u, StoreOptions{1000ms});
    ASSERT_TRUE(store);
    auto r = (*store)->get("kb/x");
    ASSERT_FALSE(r) << u;
    EXPECT_TRUE(r.error().code == "remote-io" || r.error().code == "remote-garbage") << r.error().code;
    auto l = (*store)->list("kb/");
    EXPECT_FALSE(l) << u;
  }
}

TEST(RemoteStore, GuardRefusesWritesWhenReadOnly) {
  GuardOptions o;
  o.read_only = true;
  o.breaker_file = test::temp_dir() + "/breaker";
  auto store = guard_store(make_memory_store(), o);
  auto s = store->put("kb/a", "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, "remote-read-only");
  EXPECT_TRUE(store->get("kb/a"));
}

} // namespace
} // namespace kbcc::remote
