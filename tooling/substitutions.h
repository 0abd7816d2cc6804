// Which chosen variants can be substituted into a unit, and where: maps
// (kernel hash, arch) choices onto byte ranges of the unit, applying the
// rules of docs/kernels.md (main-file optimizable kernels only; a template's
// text only when all its instantiations agree; an explicit specialization of
// one instance after its template). Launch-changing choices are left
// to tooling/launch_plan.h.
#pragma once

#include "launch/mapping.h"
#include "tooling/kernel.h"
#include "tooling/rewrite.h"

#include <optional>
#include <string>
#include <vector>

namespace kbcc::tooling {

struct VariantChoice {
  std::string kernel_hash;
  std::string arch;   // "sm_90"
  std::string name;   // #line name of the variant
  std::string source; // replacement definition
  // Launch-changing variant (planned by tooling/launch_plan.h, not here).
  std::optional<launch::LaunchMapping> launch;
};

// The kernel `c` names in `per_arch` (and, in `in`, the extraction holding it).
const Kernel *find_kernel(const std::vector<Extraction> &per_arch, const VariantChoice &c, const Extraction **in);

// Why `k` cannot take a variant in the unit at `path` (absolute); empty when it
// can. A null `k` is "kernel-not-in-unit".
std::string variant_refusal(const Kernel *k, const std::string &path);

// The substitutions for the unit at `path` (absolute) given its per-arch
// extractions. Choices that do not qualify are left out (the kernel keeps its
// original text for that arch); `skipped` (optional) receives one reason code
// per left-out choice.
std::vector<Substitution> plan_substitutions(const std::string &path, const std::vector<Extraction> &per_arch,
                                             const std::vector<VariantChoice> &choices,
                                             std::vector<std::string> *skipped = nullptr);

} // namespace kbcc::tooling
