#include "remote/trust.h"

#include "support/fs.h"
#include "support/hash.h"

#include <cctype>
#include <sodium.h>
#include <sstream>
#include <sys/stat.h>

namespace kbcc::remote {
namespace {

void init_sodium() {
  static const int rc = sodium_init();
  (void)rc;
}

std::string to_hex(const unsigned char *data, size_t len) {
  std::string out(len * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), data, len);
  out.pop_back();
  return out;
}

bool from_hex(const std::string &hex, unsigned char *out, size_t len) {
  size_t got = 0;
  if (hex.size() != len * 2) return false;
  return sodium_hex2bin(out, len, hex.data(), hex.size(), nullptr, &got, nullptr) == 0 && got == len;
}

bool is_hex(const std::string &s, size_t len) {
  if (s.size() != len) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string variant_message(const std::string &content_hash) { return "kbcc-variant-v1\n" + content_hash; }

} // namespace

KeyPair generate_key() {
  init_sodium();
  unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(pk, sk);
  KeyPair kp{to_hex(pk, sizeof pk), to_hex(sk, sizeof sk)};
  sodium_memzero(sk, sizeof sk);
  return kp;
}

Status write_secret_key(const std::string &path, const KeyPair &key) {
  if (auto s = write_file_atomic(path, "kbcc-ed25519-secret " + key.secret_hex + "\n"); !s) return s;
  if (chmod(path.c_str(), 0600) != 0) return make_error(path + ": cannot restrict permissions to 0600", "trust-io");
  return Status::ok();
}

Expected<KeyPair> read_secret_key(const std::string &path) {
  init_sodium();
  auto text = read_file(path);
  if (!text) return text.error();
  std::istringstream in(*text);
  std::string tag, hex;
  in >> tag >> hex;
  unsigned char sk[crypto_sign_SECRETKEYBYTES], pk[crypto_sign_PUBLICKEYBYTES];
  if (tag != "kbcc-ed25519-secret" || !from_hex(hex, sk, sizeof sk))
    return make_error(path + ": not a kbcc signing key (expected 'kbcc-ed25519-secret <128 hex>'; "
                             "make one with `kbcc trust keygen`)",
                      "trust-bad-key");
  crypto_sign_ed25519_sk_to_pk(pk, sk);
  sodium_memzero(sk, sizeof sk);
  return KeyPair{to_hex(pk, sizeof pk), hex};
}

Expected<std::string> parse_public_key(const std::string &text_or_path) {
  if (is_hex(text_or_path, 64)) return text_or_path;
  auto text = read_file(text_or_path);
  if (!text)
    return make_error("'" + text_or_path + "' is neither a public key (64 hex characters) nor a readable file",
                      "trust-bad-key");
  std::istringstream in(*text);
  std::string first, second;
  in >> first >> second;
  if (first == "kbcc-ed25519-secret") {
    auto kp = read_secret_key(text_or_path);
    if (!kp) return kp.error();
    return kp->public_hex;
  }
  if (first == "kbcc-ed25519-public" && is_hex(second, 64)) return second;
  if (is_hex(first, 64)) return first;
  return make_error(text_or_path + ": no ed25519 public key (64 hex characters) in the file", "trust-bad-key");
}

std::string sign_message(const KeyPair &key, const std::string &message) {
  init_sodium();
  unsigned char sk[crypto_sign_SECRETKEYBYTES], sig[crypto_sign_BYTES];
  if (!from_hex(key.secret_hex, sk, sizeof sk)) return {};
  crypto_sign_detached(sig, nullptr, reinterpret_cast<const unsigned char *>(message.data()), message.size(), sk);
  sodium_memzero(sk, sizeof sk);
  return to_hex(sig, sizeof sig);
}

bool verify_message(const std::string &public_hex, const std::string &message, const std::string &signature_hex) {
  init_sodium();
  unsigned char pk[crypto_sign_PUBLICKEYBYTES], sig[crypto_sign_BYTES];
  if (!from_hex(public_hex, pk, sizeof pk) || !from_hex(signature_hex, sig, sizeof sig)) return false;
  return crypto_sign_verify_detached(sig, reinterpret_cast<const unsigned char *>(message.data()), message.size(),
                                     pk) == 0;
}

std::string trusted_keys_file(const std::string &kbcc_dir) { return kbcc_dir + "/trusted-keys"; }

Expected<std::vector<TrustedKey>> read_trusted_keys(const std::string &kbcc_dir) {
  std::string path = trusted_keys_file(kbcc_dir);
  std::vector<TrustedKey> keys;
  if (!file_exists(path)) return keys;
  auto text = read_file(path);
  if (!text) return text.error();
  std::istringstream in(*text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    TrustedKey k;
    fields >> k.public_hex;
    std::getline(fields >> std::ws, k.name);
    if (!is_hex(k.public_hex, 64))
      return make_error(path + ":" + std::to_string(lineno) + ": expected '<64 hex public key> [name]'",
                        "trust-bad-file");
    keys.push_back(k);
  }
  return keys;
}

Status write_trusted_keys(const std::string &kbcc_dir, const std::vector<TrustedKey> &keys) {
  std::string text = "# kbcc trusted ed25519 public keys: <key> [name] (edit with `kbcc trust add|remove`)\n";
  for (const auto &k : keys)
    text += k.public_hex + (k.name.empty() ? "" : " " + k.name) + "\n";
  return write_file_atomic(trusted_keys_file(kbcc_dir), text);
}

std::string variant_content_hash(const cache::VariantRecord &record) {
  cache::VariantRecord unsigned_copy = record;
  unsigned_copy.signature.clear();
  unsigned_copy.signer.clear();
  return hash_hex(cache::to_json(unsigned_copy).dump());
}

void sign_variant(cache::VariantRecord &record, const KeyPair &key) {
  record.signer = key.public_hex;
  record.signature = sign_message(key, variant_message(variant_content_hash(record)));
}

bool signed_by_trusted(const cache::VariantRecord &record, const std::vector<TrustedKey> &trusted) {
  if (record.signature.empty() || record.signer.empty()) return false;
  for (const auto &k : trusted)
    if (k.public_hex == record.signer)
      return verify_message(k.public_hex, variant_message(variant_content_hash(record)), record.signature);
  return false;
}

} // namespace kbcc::remote
