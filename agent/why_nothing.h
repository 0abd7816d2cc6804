// Why `kbcc optimize` / `kbcc warm` have nothing to do: one line per
// registry kernel and per capture that is not a task, with the reason and
// what would change it. Pure functions over what the stores hold, so every
// message is tested without a GPU.
#pragma once

#include "cache/stats.h"
#include "gpu/harness.h"
#include "kb/registry.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace kbcc {
class Config;
}

namespace kbcc::agent {

// Everything the explanation reads.
struct NothingInputs {
  std::vector<kb::RegistryEntry> entries;           // the whole registry
  std::vector<gpu::CaptureInfo> captures;           // every capture, any arch, replayable or not
  std::map<std::string, gpu::KernelTally> sessions; // per mangled name, summed over capture sessions
  cache::Counters stats;                            // build statistics (fallbacks, extraction failures)
  std::map<std::string, std::string> firsts;        // first file/kernel per failure counter
  std::string arch;                                 // the arch optimized for
  std::string filter;                               // --kernel value; empty = every kernel
};

// The lines of the explanation, in order: the registry (empty, and which
// compiles fell back with their reasons), then per registry kernel matching
// the filter why it is no task (not optimizable, never captured, captured on
// another arch, not replayable, launches skipped by size), then captures
// whose kernel is not in the registry.
std::vector<std::string> why_nothing(const NothingInputs &in);

// Reads the captures and statistics under `config`'s directory and prints
// "kbcc: nothing to optimize for <arch>" with why_nothing()'s lines: to
// `out` and returns 0, or with a --kernel `filter` (which then matched no
// task) to `err` and returns 1, as run_optimize's exit status.
int explain_nothing_to_do(const Config &config, const std::vector<kb::RegistryEntry> &entries, const std::string &arch,
                          const std::string &filter, std::ostream &out, std::ostream &err);

} // namespace kbcc::agent
