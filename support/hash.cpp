#include "support/hash.h"

#include <cstdio>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace kbcc {

Hasher::Hasher() : state_(XXH3_createState()) { XXH3_128bits_reset(static_cast<XXH3_state_t *>(state_)); }

Hasher::~Hasher() { XXH3_freeState(static_cast<XXH3_state_t *>(state_)); }

void Hasher::update(std::string_view bytes) {
  XXH3_128bits_update(static_cast<XXH3_state_t *>(state_), bytes.data(), bytes.size());
}

void Hasher::field(std::string_view bytes) {
  uint64_t n = bytes.size();
  update(std::string_view(reinterpret_cast<const char *>(&n), sizeof n));
  update(bytes);
}

static std::string to_hex(XXH128_hash_t h) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

std::string Hasher::hex() const { return to_hex(XXH3_128bits_digest(static_cast<XXH3_state_t *>(state_))); }

std::string hash_hex(std::string_view bytes) { return to_hex(XXH3_128bits(bytes.data(), bytes.size())); }

uint64_t hash64(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

}  // namespace kbcc
