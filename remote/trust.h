// Trust: ed25519 keys (libsodium), detached signatures of variants, and the
// list of trusted public keys in $KBCC_DIR/trusted-keys. A remote variant is
// compiled into a build only when a trusted key signed it (or a snapshot pins it).
#pragma once

#include "cache/variant.h"
#include "support/expected.h"

#include <string>
#include <vector>

namespace kbcc::remote {

struct KeyPair {
  std::string public_hex; // 64 hex characters
  std::string secret_hex; // 128 hex characters (libsodium's secret key, public key included)
};

struct TrustedKey {
  std::string public_hex;
  std::string name; // label given at `kbcc trust add` (may be empty)
};

// A fresh random ed25519 key pair.
KeyPair generate_key();
// Writes a secret key file (mode 0600): "kbcc-ed25519-secret <hex>".
Status write_secret_key(const std::string &path, const KeyPair &key);
// Reads a secret key file written by write_secret_key; errors name the file.
Expected<KeyPair> read_secret_key(const std::string &path);
// Parses a public key given as 64 hex characters or as a file holding them
// (a secret key file yields its public half).
Expected<std::string> parse_public_key(const std::string &text_or_path);

// Detached ed25519 signature (hex) of `message`.
std::string sign_message(const KeyPair &key, const std::string &message);
// Whether `signature_hex` is `public_hex`'s valid signature of `message`.
bool verify_message(const std::string &public_hex, const std::string &message, const std::string &signature_hex);

// The trusted keys under `kbcc_dir` (empty when the file does not exist).
Expected<std::vector<TrustedKey>> read_trusted_keys(const std::string &kbcc_dir);
Status write_trusted_keys(const std::string &kbcc_dir, const std::vector<TrustedKey> &keys);
std::string trusted_keys_file(const std::string &kbcc_dir);

// Content address of a variant record: XXH3-128 of its JSON with the
// signature fields left empty (so signing does not change the address).
std::string variant_content_hash(const cache::VariantRecord &record);
// Signs `record` (sets signature and signer) with `key`.
void sign_variant(cache::VariantRecord &record, const KeyPair &key);
// Whether `record` carries a valid signature by one of `trusted`.
bool signed_by_trusted(const cache::VariantRecord &record, const std::vector<TrustedKey> &trusted);

} // namespace kbcc::remote
