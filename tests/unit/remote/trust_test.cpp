// ed25519 keys, signatures of variants, and the trusted-keys file.
#include "remote/trust.h"
#include "servers.h"
#include "support/fs.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

namespace kbcc::remote {
namespace {

using test::sample_variant;

TEST(Trust, SignAndVerify) {
  KeyPair k = generate_key();
  EXPECT_EQ(k.public_hex.size(), 64u);
  EXPECT_EQ(k.secret_hex.size(), 128u);
  std::string sig = sign_message(k, "hello");
  EXPECT_TRUE(verify_message(k.public_hex, "hello", sig));
  EXPECT_FALSE(verify_message(k.public_hex, "hellO", sig));
  EXPECT_FALSE(verify_message(generate_key().public_hex, "hello", sig));
  EXPECT_FALSE(verify_message(k.public_hex, "hello", "zz"));
}

TEST(Trust, SecretKeyFileRoundTripsWithMode0600) {
  std::string path = test::temp_dir() + "/signing.key";
  KeyPair k = generate_key();
  ASSERT_TRUE(write_secret_key(path, k));
  struct stat st{};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto back = read_secret_key(path);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->public_hex, k.public_hex);
  auto pub = parse_public_key(path);
  ASSERT_TRUE(pub);
  EXPECT_EQ(*pub, k.public_hex);
}

TEST(Trust, BadKeyFilesAreNamed) {
  std::string path = test::temp_dir() + "/bad.key";
  ASSERT_TRUE(write_file_atomic(path, "kbcc-ed25519-secret nothex\n"));
  auto k = read_secret_key(path);
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message.find(path), std::string::npos);
  EXPECT_FALSE(parse_public_key("abc"));
}

TEST(Trust, TrustedKeysFile) {
  std::string dir = test::temp_dir();
  auto none = read_trusted_keys(dir);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  KeyPair a = generate_key(), b = generate_key();
  ASSERT_TRUE(write_trusted_keys(dir, {{a.public_hex, "alice"}, {b.public_hex, ""}}));
  auto keys = read_trusted_keys(dir);
  ASSERT_TRUE(keys);
  ASSERT_EQ(keys->size(), 2u);
  EXPECT_EQ((*keys)[0].name, "alice");
  EXPECT_EQ((*keys)[1].public_hex, b.public_hex);
  ASSERT_TRUE(write_file_atomic(trusted_keys_file(dir), "zzz alice\n"));
  auto bad = read_trusted_keys(dir);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("trusted-keys:1"), std::string::npos);
}

TEST(Trust, VariantSignatureCoversTheWholeRecord) {
  KeyPair k = generate_key();
  std::vector<TrustedKey> trusted{{k.public_hex, "k"}};
  cache::VariantRecord r = sample_variant();
  std::string address = variant_content_hash(r);
  EXPECT_FALSE(signed_by_trusted(r, trusted));
  sign_variant(r, k);
  EXPECT_EQ(variant_content_hash(r), address) << "signing does not move the address";
  EXPECT_TRUE(signed_by_trusted(r, trusted));
  EXPECT_FALSE(signed_by_trusted(r, {{generate_key().public_hex, "other"}}));
  cache::VariantRecord tampered = r;
  tampered.source += " ";
  EXPECT_FALSE(signed_by_trusted(tampered, trusted));
  tampered = r;
  tampered.timing.variant_median_us = 1; // forged evidence
  EXPECT_FALSE(signed_by_trusted(tampered, trusted));
}

} // namespace
} // namespace kbcc::remote
