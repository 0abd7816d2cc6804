// The launch contract of a launch-changing variant: how the original launch
// (grid, block, dynamic shared memory, the kernel's scalar arguments) maps to
// the variant's launch, and the preconditions under which the variant may run
// instead of the original. Absent mapping = the variant keeps the launch.
#pragma once

#include "launch/expr.h"
#include "support/expected.h"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kbcc::launch {

struct LaunchMapping {
  std::array<std::string, 3> grid{"grid.x", "grid.y", "grid.z"};
  std::array<std::string, 3> block{"block.x", "block.y", "block.z"};
  std::string shared = "shared";
  std::vector<std::string> preconditions; // each must evaluate to non-zero
};

// What a mapping may refer to: the kernel's parameters.
struct ParamInfo {
  std::string name;
  enum class Kind { Signed, Unsigned, Pointer, Other } kind = Kind::Other;
  unsigned size = 0; // bytes
};

// Canonical form: every expression re-printed by to_string, preconditions
// deduplicated in order. Errors name the expression that does not parse.
Expected<LaunchMapping> canonical(const LaunchMapping &m);

// Checks that every expression parses and refers only to launch fields,
// integer parameters (as values) and pointer parameters (in aligned() and distinct()).
// Errors name the expression and the offending name.
Status check_mapping(const LaunchMapping &m, const std::vector<ParamInfo> &params);

// True when the mapping keeps the launch and has no preconditions.
bool is_identity(const LaunchMapping &m);

// `second` applied after `first`: the launch fields of `second` are replaced
// by `first`'s expressions, and the preconditions of both are kept (but for
// those of `second` that then hold on any launch).
Expected<LaunchMapping> compose(const LaunchMapping &first, const LaunchMapping &second);

struct Launch {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t shared = 0;
};

// The largest dynamic shared memory a mapped launch may ask for without the
// kernel opting in (cudaFuncAttributeMaxDynamicSharedMemorySize).
inline constexpr uint32_t kMaxDefaultSharedBytes = 48 * 1024;

// The outcome of applying a mapping to one launch.
struct Applied {
  bool ok = false;
  std::string failed; // the precondition that does not hold, or why the mapped launch is invalid
  Launch launch;      // the variant's launch when ok
};

// Evaluates `m` for `original` with parameter values from `params` (a Scope
// that knows the parameters; launch fields are supplied here). Errors are
// reserved for malformed mappings; a failing precondition is Applied{ok=false}.
Expected<Applied> apply_mapping(const LaunchMapping &m, const Launch &original, const Scope &params);

nlohmann::json to_json(const LaunchMapping &m);
// Errors name `origin` and the field.
Expected<LaunchMapping> mapping_from_json(const nlohmann::json &j, const std::string &origin);

} // namespace kbcc::launch
