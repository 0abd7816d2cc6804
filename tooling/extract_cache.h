// Direct-mode cache of extraction results, as ccache's direct mode: the key
// hashes the unit's own content, the parse command line, the arch and the
// toolchain; an entry holds a manifest of every file the parse read (path and
// content hash) and is a hit only when all of them are unchanged.
// Entries are files under <dir>/<key[0:2]>/<key>.json, written atomically.
#pragma once

#include "support/expected.h"
#include "tooling/kernel.h"
#include "tooling/request.h"

#include <optional>
#include <string>

namespace kbcc::tooling {

class ExtractCache {
public:
  // `dir` is usually $KBCC_DIR/extract.
  explicit ExtractCache(std::string dir) : dir_(std::move(dir)) {}

  // The cache key of `request` (reads the source file); Error when unreadable.
  Expected<std::string> key(const ParseRequest &request) const;
  // The stored extraction when every file in its manifest is unchanged
  // (from_cache set); nullopt on a miss or an unusable entry.
  std::optional<Extraction> lookup(const ParseRequest &request) const;
  // Stores `x` (with a manifest of x.included_files) for `request`.
  Status store(const ParseRequest &request, const Extraction &x) const;

private:
  std::string entry_path(const std::string &key) const;
  std::string dir_;
};

} // namespace kbcc::tooling
