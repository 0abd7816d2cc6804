// The kernel registry: every kernel kbcc has seen in a build, keyed by kernel
// hash. The optimizer (`kbcc optimize`) and cache warming work from it.
#pragma once

#include "cache/env.h"
#include "support/expected.h"
#include "tooling/kernel.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kbcc::kb {

struct RegistryEntry {
  std::string hash;                       // kernel hash (32 hex)
  std::string qualified_name;             // "ns::scale<float>"
  std::vector<std::string> mangled_names; // device entry names
  std::vector<tooling::Param> params;     // parameter layout
  std::string source;                     // the kernel definition
  std::string dependencies;               // source of what it depends on (callees, types, macros)
  std::string file;                       // file holding the definition
  unsigned line = 0;
  std::string tu_path;                      // translation unit last compiled with it (absolute)
  std::vector<std::string> compile_command; // that compile's nvcc argv
  std::string working_dir;                  // that compile's working directory
  std::string closure;                      // id of that unit's stored closure (kb/closure.h); empty = none
  std::string toolchain;                    // nvcc version text
  std::vector<std::string> archs;           // every arch it was compiled for (sorted, unique)
  std::string not_optimizable;              // reason code, empty when a variant may replace it
  int64_t first_seen = 0;                   // unix seconds
  int64_t last_seen = 0;
  uint64_t build_count = 0; // compiles that contained it
};

nlohmann::json to_json(const RegistryEntry &entry);
Expected<RegistryEntry> registry_entry_from_json(const nlohmann::json &j, const std::string &origin);

// Builds the entry for one kernel seen in a compile (first_seen = last_seen =
// `now`, build_count = 1).
RegistryEntry entry_from_kernel(const tooling::Kernel &kernel, const std::vector<std::string> &archs,
                                const std::string &tu_path, const std::vector<std::string> &compile_command,
                                const std::string &working_dir, const std::string &toolchain, int64_t now);

// Folds `seen` into `existing`: names, source, compile command and closure
// from `seen` (the existing closure when `seen` has none), archs united,
// first_seen min, last_seen max, build counts added.
RegistryEntry fold_entry(const RegistryEntry &existing, const RegistryEntry &seen);

class Registry {
public:
  explicit Registry(cache::Env &env) : env_(env) {}

  // Inserts or folds (fold_entry) every entry in one write transaction.
  Status upsert(const std::vector<RegistryEntry> &seen);
  Status upsert(const RegistryEntry &seen) { return upsert(std::vector<RegistryEntry>{seen}); }
  // The entry for `hash`, if any.
  Expected<std::optional<RegistryEntry>> get(const std::string &hash);
  // Every entry, ordered by hash.
  Expected<std::vector<RegistryEntry>> list();
  Expected<uint64_t> count();

private:
  cache::Env &env_;
};

} // namespace kbcc::kb
