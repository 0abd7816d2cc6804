// Where a kernel's translation unit is compiled from when candidates and
// baselines are built: the unit's closure stored with the registry
// (kb/closure.h), written out in a private directory, so no checkout is
// needed; else the user's checkout (the registry's tu_path).
#pragma once
#include "agent/types.h"
#include "support/expected.h"

#include <string>
#include <vector>

namespace kbcc::cache {
class Env;
}

namespace kbcc::agent {

// Neither the closure nor the checkout can provide the unit.
inline constexpr const char *kErrNoUnitSource = "no-unit-source";

struct UnitSource {
  std::string tu_path;                      // the unit to compile
  std::string working_dir;                  // where nvcc runs
  std::vector<std::string> compile_command; // the unit's nvcc argv, valid from working_dir
  std::string closure_root;                 // where the closure was written; empty = the checkout
  std::string recorded_root;                // the closure's root where it was recorded
  std::string origin;                       // "closure <id prefix>" or "checkout", for messages
};

// The unit of `task`: its closure (task.closure) written under
// `dir`/unit-<id prefix> (reused when already there) when `store` holds it
// completely, else the checkout when task.tu_path exists. Errors: the
// closure's own (damaged in the store), or kErrNoUnitSource naming the
// closure and the missing unit.
Expected<UnitSource> materialize_unit(const KernelTask &task, cache::Env *store, const std::string &dir);

// `task` with its unit, kernel file, compile command and working directory
// moved to `unit` (the kernel file is mapped into the closure when it lies
// in the recorded root).
KernelTask at_unit(const KernelTask &task, const UnitSource &unit);

} // namespace kbcc::agent
