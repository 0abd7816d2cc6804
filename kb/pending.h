// Units compiled without a parse: with deferred registration (config key
// deferred_registration) a build records only how a unit was compiled when
// no kernel it names has a variant; `kbcc capture`, `optimize`, `warm` and
// the other commands that read the registry parse these units first
// (driver/registration.h), so the registry still learns every kernel.
#pragma once

#include "cache/env.h"
#include "support/expected.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kbcc::kb {

struct PendingUnit {
  std::string key;      // one per (unit, command, working directory): a rebuild replaces it
  nlohmann::json unit;  // the compile unit as the driver describes it
  int64_t recorded = 0; // unix seconds
};

class PendingUnits {
public:
  explicit PendingUnits(cache::Env &env) : env_(env) {}
  // Records `unit` under `key`, replacing an earlier record.
  Status put(const std::string &key, const nlohmann::json &unit, int64_t now);
  // Every pending unit, ordered by key. A record that does not parse is an
  // Error naming it.
  Expected<std::vector<PendingUnit>> list();
  // Forgets `key` (registered, or its unit is gone).
  Status remove(const std::string &key);
  Expected<uint64_t> count();

private:
  cache::Env &env_;
};

} // namespace kbcc::kb
