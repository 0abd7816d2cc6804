// Build statistics (`kbcc stats`): named counters shared by every kbcc
// process under one KBCC_DIR. Counter names are stable because they are stored.
#pragma once

#include "support/expected.h"

#include <cstdint>
#include <map>
#include <string>

namespace kbcc::cache {

// Well-known counters. Cannot-optimize reasons are counted as
// "cannot-optimize:<reason>", not-compilation calls as "not-compilation".
inline constexpr const char *kCompilations = "compilations";
inline constexpr const char *kHits = "variant-hits";
inline constexpr const char *kMisses = "variant-misses";
inline constexpr const char *kFallbacks = "fallbacks";
inline constexpr const char *kParseMicros = "parse-microseconds";
inline constexpr const char *kParses = "parses";
inline constexpr const char *kExtractionCacheHits = "extraction-cache-hits";
inline constexpr const char *kDeferred = "deferred-registrations"; // compiles whose parse waits (driver/deferral.h)

using Counters = std::map<std::string, uint64_t>;

// Adds `deltas` to the counters under `kbcc_dir` (atomic across processes).
Status add_stats(const std::string &kbcc_dir, const Counters &deltas);
// Reads all counters (empty when none were written yet).
Expected<Counters> read_stats(const std::string &kbcc_dir);
// Resets all counters to zero (and forgets the noted firsts).
Status zero_stats(const std::string &kbcc_dir);

// For counters that count failures: remembers `detail` (the first file or
// kernel that failed, with the message) for counter `name` unless one is
// kept already since the last zero_stats. Kept in $KBCC_DIR/stats-first.json.
Status note_first(const std::string &kbcc_dir, const std::string &name, const std::string &detail);
// The noted firsts by counter name (empty when none).
Expected<std::map<std::string, std::string>> read_firsts(const std::string &kbcc_dir);

// Launches counted by the host adapters of programs run with
// KBCC_ADAPTER_STATS (launch/adapter.h), summed per kernel hash over
// $KBCC_DIR/adapter-stats.jsonl.
struct AdapterCounts {
  std::string name;
  uint64_t variant = 0, fallback_arch = 0, fallback_precondition = 0, fallback_launch = 0;
  uint64_t fallbacks() const { return fallback_arch + fallback_precondition + fallback_launch; }
};
// Errors name the file and line that does not parse.
Expected<std::map<std::string, AdapterCounts>> read_adapter_stats(const std::string &kbcc_dir);
// Removes the adapter counts (with zero_stats).
Status zero_adapter_stats(const std::string &kbcc_dir);

} // namespace kbcc::cache
