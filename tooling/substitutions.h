// Which chosen variants can be substituted into a unit, and where: maps
// (kernel hash, arch) choices onto byte ranges of the unit, applying the
// rules of docs/kernels.md (main-file optimizable kernels only; a template
// only when all its instantiations agree).
#pragma once

#include "tooling/kernel.h"
#include "tooling/rewrite.h"

#include <string>
#include <vector>

namespace kbcc::tooling {

struct VariantChoice {
  std::string kernel_hash;
  std::string arch;   // "sm_90"
  std::string name;   // #line name of the variant
  std::string source; // replacement definition
};

// The substitutions for the unit at `path` (absolute) given its per-arch
// extractions. Choices that do not qualify are left out (the kernel keeps its
// original text for that arch); `skipped` (optional) receives one reason code
// per left-out choice.
std::vector<Substitution> plan_substitutions(const std::string &path, const std::vector<Extraction> &per_arch,
                                             const std::vector<VariantChoice> &choices,
                                             std::vector<std::string> *skipped = nullptr);

} // namespace kbcc::tooling
