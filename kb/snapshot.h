// Snapshots: a self-contained, content-addressed file holding the KB policy
// and the chosen variant per (kernel hash, arch). Its id is the XXH3-128 of
// its canonical content, so a snapshot whose content was changed is refused.
// Pinning (KBCC_SNAPSHOT or kbcc.lock, docs/store-format.md) makes a build
// use only a snapshot's variants.
#pragma once

#include "cache/env.h"
#include "cache/variant.h"
#include "kb/policy.h"
#include "support/expected.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kbcc::kb {

inline constexpr const char *kSnapshotFormat = "kbcc-snapshot";
inline constexpr int kSnapshotVersion = 1;
// Error code of an unusable snapshot (stable: the driver keys strict mode on it).
inline constexpr const char *kErrBadSnapshot = "bad-snapshot";
// Name of the lock file that pins a source tree.
inline constexpr const char *kLockFileName = "kbcc.lock";

struct Snapshot {
  std::string id;                             // hash of canonical content
  std::vector<std::string> archs;             // archs the variants were chosen for (sorted)
  nlohmann::json policy;                      // the KB policy document (to_json form)
  std::vector<cache::VariantRecord> variants; // sorted by (kernel hash, arch)

  // The variant for (kernel hash, arch), if the snapshot has one.
  const cache::VariantRecord *find(const std::string &kernel_hash, const std::string &arch) const;
};

// Builds a snapshot of the store's policy and variants; `archs` empty = all.
Expected<Snapshot> create_snapshot(cache::Env &env, const std::vector<std::string> &archs);
// Canonical content (what the id hashes): sorted keys, no whitespace, no id.
std::string snapshot_canonical(const Snapshot &snapshot);
// The file text: canonical content plus the id.
std::string snapshot_text(const Snapshot &snapshot);
// Reads and verifies a snapshot file. Errors (code kErrBadSnapshot) name the
// file: unreadable, not a snapshot, foreign version, or content not matching id.
Expected<Snapshot> load_snapshot(const std::string &path);

// The snapshot a build is pinned to: `configured` (KBCC_SNAPSHOT) when not
// empty, else the first kbcc.lock found walking up from `start_dir` (stops
// after a directory holding .git, or at the filesystem root). Empty when the
// build is not pinned.
std::string find_pinned_snapshot(const std::string &configured, const std::string &start_dir);

} // namespace kbcc::kb
