// Variants through the remote store. A variant lives at
//   variants/<kernel hash>-<arch>/<content hash>
// (content hash: trust.h variant_content_hash), so several contributors'
// variants for one kernel coexist and a download is checked against its
// address. Only a variant signed by a trusted key (or pinned by a snapshot)
// may be compiled into a build; any other is a candidate for re-validation.
#pragma once

#include "cache/variant.h"
#include "remote/store.h"
#include "remote/trust.h"
#include "support/expected.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace kbcc {
class Config;
}

namespace kbcc::remote {

enum class Trust { kTrusted, kPinned, kCandidate };

struct RemoteVariant {
  cache::VariantRecord record;
  std::string content_hash;
  Trust trust = Trust::kCandidate;
};

// Folder of (kernel hash, arch) in the remote store, with trailing '/'.
std::string variant_folder(const std::string &kernel_hash, const std::string &arch);
// Key of `record` in the remote store.
std::string variant_remote_key(const cache::VariantRecord &record);

// Signs `record` with the key file named by the signing_key config key; does
// nothing when none is configured. Error when the key file is unusable.
Status sign_variant(const Config &config, cache::VariantRecord &record);
// Uploads a validated record (check_variant) to `store`, signed as it is.
Status publish_variant(Store &store, const cache::VariantRecord &record);
// `kbcc optimize`'s hook: signs (sign_variant) and uploads `record` to the
// configured remote. Ok without doing anything when no remote is configured
// or it is read-only; an Error when signing or uploading failed (logged once).
Status publish_variant(const Config &config, cache::VariantRecord record);

// Downloads the variants of (kernel hash, arch), at most `max` of them, and
// stops issuing requests once `deadline` has passed. Each is checked: its
// content must match its address and pass check_variant (a rejected one is
// left out with one log line), then classified against `trusted` and
// `pinned` (records of a snapshot); `rejected` counts the rejected ones.
// Errors are store failures.
Expected<std::vector<RemoteVariant>> download_variants(Store &store, const std::string &kernel_hash,
                                                       const std::string &arch, const std::vector<TrustedKey> &trusted,
                                                       const std::vector<cache::VariantRecord> &pinned,
                                                       std::chrono::steady_clock::time_point deadline, size_t max = 4,
                                                       uint64_t *rejected = nullptr);
// The fastest trusted or pinned variant among `found`, if any.
std::optional<RemoteVariant> best_trusted(const std::vector<RemoteVariant> &found);

// Build-time lookup after a local cache miss: the fastest variant of (kernel
// hash, arch) on the configured remote that a trusted key signed, within
// about remote_timeout. nullopt when there is none, no remote is configured,
// or the remote fails (one log line; the build goes on). The caller stores
// the result in its local variant cache so the next build hits locally.
std::optional<cache::VariantRecord> fetch_variant(const Config &config, const std::string &kernel_hash,
                                                  const std::string &arch);

} // namespace kbcc::remote
