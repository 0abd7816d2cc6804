// XXH3-128 hashing with hex output. All content addresses in kbcc use this.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kbcc {

// Incremental XXH3-128 hasher.
class Hasher {
public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher &) = delete;
  Hasher &operator=(const Hasher &) = delete;

  // Appends raw bytes.
  void update(std::string_view bytes);
  // Appends a length-prefixed field so that ("ab","c") and ("a","bc") differ.
  void field(std::string_view bytes);
  // Returns the digest as 32 lowercase hex characters.
  std::string hex() const;

private:
  void *state_;
};

// One-shot XXH3-128 of `bytes` as 32 lowercase hex characters.
std::string hash_hex(std::string_view bytes);

// One-shot XXH3-64 (for cheap in-memory keys).
uint64_t hash64(std::string_view bytes);

}  // namespace kbcc
