// Fills a KBCC_DIR with a small but complete set of stored results (KB
// evidence, registry entries, variants, trajectories with profiled steps),
// through the stores' public API, for the report tests.
#pragma once

#include "support/expected.h"

#include <string>

namespace kbcc::report::testing {

struct SeedCounts {
  size_t kernels = 4;      // registry entries
  size_t variants = 3;     // kernels 0..2 get a variant for sm_90
  size_t trajectories = 6; // spread over the kernels, 4 steps each
};

// Writes the seeded data into the store under `kbcc_dir` (created when needed).
Status seed_store(const std::string &kbcc_dir, const SeedCounts &counts = {});

} // namespace kbcc::report::testing
