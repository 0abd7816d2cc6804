// Kernels versioned on their parameters' values (value_versioning): the
// body lives in a local function that the kernel calls once per version.
// The other transforms rewrite the body as written and the versions are
// put back around their result, so versioning commutes with them.
#pragma once

#include "support/expected.h"
#include "transform/ast.h"

#include <optional>
#include <string>

namespace kbcc::transform {

struct Versioned {
  std::string plain; // the definition with the local function's body as the kernel's body
  std::string calls; // the statements after the local class that call a version
};

// The parts of `k` when value_versioning wrote it; nullopt otherwise.
std::optional<Versioned> versioned_parts(const KernelAst &k);

// `definition` (one kernel's definition) with its body moved into the local
// function and `calls` after the local class. Error "not-applicable" when
// no kernel is found in it.
Expected<std::string> versioned(const std::string &definition, const std::string &calls);

} // namespace kbcc::transform
