// Deferred registration: a compile parses its unit only when a kernel the
// unit names may have a variant to compile in (config key
// deferred_registration). Otherwise it records how the unit was compiled
// (kb/pending.h) and runs nvcc unchanged; the commands that read the
// registry parse those units first (driver/registration.h). Nothing here
// needs Clang: the decision reads the unit's text and the store.
#pragma once

#include "driver/stages.h"
#include "support/config.h"

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace kbcc::driver {

struct Deferral {
  bool defer = false;      // run nvcc unchanged now, register later
  bool record = false;     // record the unit for that later registration
  std::string why;         // for --kbcc-verbose
  bool name_match = false; // a variant's kernel is named in the unit: a substitution is likely
};

// Whether `unit`'s parse can wait: deferred registration is on, and no
// variant that could apply to it exists — in the pinned snapshot, or in the
// local variant cache with no remote configured — whose kernel name appears
// among the identifiers of the unit's main file. Any doubt (an unreadable
// file, a store error, a remote that may hold variants) means: parse now.
Deferral decide_deferral(const Config &config, const CompileUnit &unit);

// Records `unit` for a later registration; one log line on failure.
void record_pending(const Config &config, const CompileUnit &unit);

// The identifiers of a C++ text (a superset of the names it spells).
std::set<std::string> identifiers_of(const std::string &text);

// A compile unit as a pending record stores it, and back.
nlohmann::json unit_to_json(const CompileUnit &unit);
Expected<CompileUnit> unit_from_json(const nlohmann::json &j);

} // namespace kbcc::driver
