// The registration that deferred compiles left for later (driver/deferral.h):
// each unit recorded without a parse is parsed now, with the flags of its
// compile, and its kernels and closure go into the registry as a build would
// have recorded them. Commands that read the registry run this first.
#pragma once

#include "support/config.h"
#include "support/expected.h"

#include <cstddef>

namespace kbcc::driver {

struct Registration {
  size_t registered = 0; // units parsed and recorded
  size_t failed = 0;     // units whose parse failed (counted like a build's fallback, logged)
  size_t gone = 0;       // units whose source no longer exists
};

// Registers every pending unit, several parses at a time (in forked children,
// as a build does); with `progress`, one line per unit on stderr. A unit is
// forgotten once handled, whatever the outcome. An Error only when the store
// cannot be read.
Expected<Registration> register_pending(const Config &config, bool progress);

} // namespace kbcc::driver
