// --kbcc-* options: kbcc's own, removed from the command before nvcc runs.
#pragma once

#include <string>
#include <vector>

namespace kbcc::driver {

struct KbccOptions {
  bool dry_run = false; // --kbcc-dry-run: print the nvcc command(s), run nothing
  bool verbose = false; // --kbcc-verbose: say on stderr what kbcc does
  bool disable = false; // --kbcc-disable: run nvcc unchanged
  std::string unknown;  // first unrecognised --kbcc-* option, if any
  // Whether the parse path starts nvcc on the original command while it
  // parses; off where a variant is expected to apply (the original's object
  // would be thrown away), see driver/deferral.h.
  bool speculate = true;
};

// Removes every --kbcc-* argument from `args` and returns what they asked for.
KbccOptions strip_kbcc_options(std::vector<std::string> &args);

} // namespace kbcc::driver
