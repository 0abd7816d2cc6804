// Mechanical lowerings: source-to-source transformations of one kernel
// definition that need no LLM. Each is tagged with its safety class; every
// result still goes through full validation. Ids match the "mechanical" field
// of KB optimizations.
#pragma once
#include "agent/types.h"
#include "support/expected.h"

#include <map>
#include <string>
#include <vector>

namespace kbcc::agent {

enum class Safety {
  Exact,        // same results for every launch (unroll, register cap)
  LaunchConfig, // correct for the captured launch configurations only
  Aliasing,     // assumes read-only inputs do not alias outputs
  Numerics,     // changes floating-point results within tolerance
};

const char *safety_name(Safety s);

struct TransformContext {
  std::vector<LaunchConfig> launches;        // captured configurations
  Metrics metrics;                           // profile of the starting point
  std::map<std::string, std::string> params; // optional parameters, e.g. {"factor","8"}
};

struct Transform {
  const char *id;
  Safety safety;
  const char *summary;
  // The transformed kernel source; Error with code "not-applicable" when the
  // transform does not apply to this kernel (nothing to do, or impossible).
  Expected<std::string> (*apply)(const std::string &source, const TransformContext &context);
};

// All mechanical transforms, in documentation order.
const std::vector<Transform> &transforms();
const Transform *find_transform(const std::string &id);

} // namespace kbcc::agent
