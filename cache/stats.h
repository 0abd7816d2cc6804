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

using Counters = std::map<std::string, uint64_t>;

// Adds `deltas` to the counters under `kbcc_dir` (atomic across processes).
Status add_stats(const std::string &kbcc_dir, const Counters &deltas);
// Reads all counters (empty when none were written yet).
Expected<Counters> read_stats(const std::string &kbcc_dir);
// Resets all counters to zero.
Status zero_stats(const std::string &kbcc_dir);

} // namespace kbcc::cache
