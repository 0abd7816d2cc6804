// Variants through the remote: addresses, verification on download, trust
// classification, and the build-time fetch against real and faulty servers.
#include "remote/variants.h"
#include "servers.h"
#include "support/config.h"
#include "support/fs.h"
#include "support/log.h"

#include <gtest/gtest.h>
#include <sstream>

namespace kbcc::remote {
namespace {

using namespace std::chrono_literals;
using test::sample_variant;
using test::Server;
constexpr const char *kHash = "0123456789abcdef0123456789abcdef";

auto far() { return std::chrono::steady_clock::now() + 60s; }

int log_lines(const std::string &path, const std::string &needle) {
  auto text = read_file(path);
  if (!text) return 0;
  std::istringstream in(*text);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    n += line.find(needle) != std::string::npos;
  return n;
}

TEST(RemoteVariants, DownloadClassifiesByTrust) {
  auto store = make_memory_store();
  KeyPair team = generate_key(), stranger = generate_key();
  auto fast = sample_variant(kHash, "sm_90", 2), slow = sample_variant(kHash, "sm_90", 4),
       other = sample_variant(kHash, "sm_90", 1);
  slow.source += "// slow";
  other.source += "// unsigned";
  sign_variant(fast, team);
  sign_variant(slow, team);
  auto rogue = sample_variant(kHash, "sm_90", 0.5);
  rogue.source += "// rogue";
  sign_variant(rogue, stranger);
  for (const auto *r : {&fast, &slow, &other, &rogue})
    ASSERT_TRUE(publish_variant(*store, *r));

  std::vector<TrustedKey> trusted{{team.public_hex, "team"}};
  auto found = download_variants(*store, kHash, "sm_90", trusted, {}, far(), 10);
  ASSERT_TRUE(found) << found.error().message;
  ASSERT_EQ(found->size(), 4u);
  int n_trusted = 0;
  for (const auto &v : *found)
    n_trusted += v.trust == Trust::kTrusted;
  EXPECT_EQ(n_trusted, 2);
  auto best = best_trusted(*found);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->record.timing.variant_median_us, 2) << "fastest trusted, not the faster rogue one";

  // Pinned by a snapshot: the unsigned one becomes usable.
  found = download_variants(*store, kHash, "sm_90", {}, {other}, far(), 10);
  ASSERT_TRUE(found);
  best = best_trusted(*found);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->trust, Trust::kPinned);
  EXPECT_EQ(best->record.source, other.source);
}

TEST(RemoteVariants, ContentNotMatchingItsAddressIsRejected) {
  std::string dir = test::temp_dir();
  set_log_path(dir + "/kbcc.log");
  auto store = make_memory_store();
  auto good = sample_variant();
  auto evil = sample_variant();
  evil.source = "__global__ void scale(float *x) { }";
  ASSERT_TRUE(store->put(variant_remote_key(good), cache::to_json(evil).dump()));
  ASSERT_TRUE(store->put(variant_folder(kHash, "sm_90") + "ffff", "{not json"));
  uint64_t rejected = 0;
  auto found = download_variants(*store, kHash, "sm_90", {}, {}, far(), 10, &rejected);
  ASSERT_TRUE(found);
  EXPECT_TRUE(found->empty());
  EXPECT_EQ(rejected, 2u);
  EXPECT_EQ(log_lines(dir + "/kbcc.log", "does not match its address"), 1);
  EXPECT_EQ(log_lines(dir + "/kbcc.log", "not a variant record"), 1);
  set_log_path("");
}

TEST(RemoteVariants, AMappingSpelledOtherwiseThanCanonicallyIsFoundAndVerified) {
  auto store = make_memory_store();
  KeyPair team = generate_key();
  auto r = sample_variant(kHash, "sm_90", 2);
  launch::LaunchMapping m;
  m.grid = {"ceil_div((grid.x*block.x), 512)", "1", "1"};
  m.block = {"128", "1", "1"};
  m.shared = "0";
  m.preconditions = {"grid.y == 1", "grid.y==1", "(grid.x * block.x) % 512 == 0 || n <= grid.x*block.x"};
  r.launch = m;
  sign_variant(r, team);
  ASSERT_TRUE(publish_variant(*store, r));
  uint64_t rejected = 0;
  auto found = download_variants(*store, kHash, "sm_90", {{team.public_hex, "team"}}, {}, far(), 10, &rejected);
  ASSERT_TRUE(found);
  EXPECT_EQ(rejected, 0u);
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].trust, Trust::kTrusted);
  EXPECT_EQ((*found)[0].record.launch->preconditions.size(), 2u);
}

TEST(RemoteVariants, UnvalidatedVariantsAreNotPublished) {
  auto store = make_memory_store();
  auto r = sample_variant();
  r.validation.captures_checked = 0;
  EXPECT_FALSE(publish_variant(*store, r));
  EXPECT_TRUE(store->list("variants/")->empty());
}

TEST(RemoteVariants, DeadlineStopsDownloads) {
  auto store = make_memory_store();
  for (int i = 0; i < 3; ++i) {
    auto r = sample_variant();
    r.source += std::to_string(i);
    ASSERT_TRUE(publish_variant(*store, r));
  }
  auto found = download_variants(*store, kHash, "sm_90", {}, {}, std::chrono::steady_clock::now(), 10);
  ASSERT_TRUE(found);
  EXPECT_TRUE(found->empty());
}

// The config a build would have: remote, timeout, private KBCC_DIR.
Config build_config(const std::string &dir, const std::string &url) {
  return Config::with({{"dir", dir}, {"remote", url}, {"remote_timeout", "300"}});
}

class FetchTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = test::temp_dir();
    set_log_path(dir_ + "/kbcc.log");
  }
  void TearDown() override { set_log_path(""); }
  int log_count(const std::string &needle) { return log_lines(dir_ + "/kbcc.log", needle); }
  std::string dir_;
};

TEST_F(FetchTest, SignedVariantIsFetchedFromWebdavAndRedis) {
  Server dav(Server::kWebdav), redis(Server::kRedis);
  KBCC_REQUIRE_SERVER(dav);
  KBCC_REQUIRE_SERVER(redis);
  KeyPair key = generate_key();
  std::string key_file = dir_ + "/signing.key";
  ASSERT_TRUE(write_secret_key(key_file, key));
  for (const std::string &url : {dav.url() + "/kbcc", redis.url()}) {
    Config publisher = Config::with({{"dir", dir_}, {"remote", url}, {"signing_key", key_file}});
    ASSERT_TRUE(publish_variant(publisher, sample_variant()));
    Config build = build_config(dir_, url);
    EXPECT_FALSE(fetch_variant(build, kHash, "sm_90")) << "not trusted yet";
    EXPECT_EQ(log_count("none signed by a trusted key"), url == redis.url() ? 2 : 1);
    ASSERT_TRUE(write_trusted_keys(dir_, {{key.public_hex, "ci"}}));
    auto got = fetch_variant(build, kHash, "sm_90");
    ASSERT_TRUE(got) << url;
    EXPECT_EQ(got->source, sample_variant().source);
    EXPECT_EQ(got->signer, key.public_hex);
    EXPECT_FALSE(fetch_variant(build, kHash, "sm_80")) << "other arch: a plain miss";
    ASSERT_TRUE(write_trusted_keys(dir_, {}));
  }
}

TEST_F(FetchTest, TamperedObjectOnTheServerIsRejected) {
  Server dav(Server::kWebdav);
  KBCC_REQUIRE_SERVER(dav);
  KeyPair key = generate_key();
  ASSERT_TRUE(write_trusted_keys(dir_, {{key.public_hex, "ci"}}));
  auto r = sample_variant();
  sign_variant(r, key);
  auto store = make_store(dav.url(), {});
  ASSERT_TRUE(publish_variant(**store, r));
  // Change the stored bytes behind the server's back: forge the timing evidence.
  std::string path = dav.data_dir() + "/" + variant_remote_key(r);
  auto text = read_file(path);
  ASSERT_TRUE(text);
  auto j = nlohmann::json::parse(*text);
  j["timing"]["variant_median_us"] = 0.001;
  ASSERT_TRUE(write_file_atomic(path, j.dump()));
  EXPECT_FALSE(fetch_variant(build_config(dir_, dav.url()), kHash, "sm_90"));
  EXPECT_EQ(log_count("remote variant rejected"), 1) << read_file(dir_ + "/kbcc.log").value_or("");
  EXPECT_EQ(log_count("does not match its address"), 1) << read_file(dir_ + "/kbcc.log").value_or("");
}

TEST_F(FetchTest, FaultyServersCostOneBoundedAttemptAndOneLogLine) {
  Server slow(Server::kSlow), garbage(Server::kGarbage);
  KBCC_REQUIRE_SERVER(slow);
  KBCC_REQUIRE_SERVER(garbage);
  std::string down;
  {
    Server gone(Server::kRedis);
    KBCC_REQUIRE_SERVER(gone);
    down = gone.url();
  }
  for (const std::string &url : {down, slow.url(), slow.redis_url(), garbage.url(), garbage.redis_url()}) {
    std::string dir = test::temp_dir();
    set_log_path(dir + "/kbcc.log");
    Config build = build_config(dir, url);
    auto t0 = std::chrono::steady_clock::now();
    for (int kernel = 0; kernel < 5; ++kernel)
      EXPECT_FALSE(fetch_variant(build, kHash, "sm_90")) << url;
    auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_LT(took, 1000ms) << url << ": five lookups, at most one timeout";
    EXPECT_EQ(log_lines(dir + "/kbcc.log", "remote unavailable, continuing without it"), 1) << url;
  }
}

} // namespace
} // namespace kbcc::remote
