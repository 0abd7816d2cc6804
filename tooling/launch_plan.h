// Launch-changing variants in a unit (docs/kernels.md): for each kernel with
// such variants, the variant kernels (each compiled only for its arch, plus
// the host pass) and a host adapter are inserted right after the original
// definition, and every launch site after it that kbcc can rewrite calls the
// adapter instead of the kernel. The adapter runtime goes at the top of the
// unit. Launch sites before the definition, in headers, in macros, in device
// code, through function pointers or other APIs keep the original kernel.
#pragma once

#include "tooling/kernel.h"
#include "tooling/rewrite.h"
#include "tooling/substitutions.h"

#include <string>
#include <vector>

namespace kbcc::tooling {

struct LaunchPlan {
  UnitEdits edits;                       // insertions and launch-site replacements
  std::vector<std::string> skipped;      // one reason code per launch-changing choice left out
  unsigned sites_rewritten = 0;          // launch sites routed through an adapter
  std::vector<std::string> sites_kept;   // one reason code per launch site left as it was
  std::vector<std::string> kernels;      // qualified names of the kernels that got an adapter
};

// Plans the launch-changing `choices` (those with a mapping) of the unit at
// `path` (absolute) from its per-arch extractions.
LaunchPlan plan_launch_variants(const std::string &path, const std::vector<Extraction> &per_arch,
                                const std::vector<VariantChoice> &choices);

// The kernel's parameters as the launch-mapping language sees them.
std::vector<launch::ParamInfo> launch_params(const std::vector<Param> &params);

// The #line file name of the adapter inserted with the launch-changing
// variant named `variant_name` (each name a variant gets for #line).
std::string adapter_line_name(const std::string &variant_name);

// The qualified C++ name of the adapter of `kernel` (e.g. "::ns::__kbcc_launch_k_1a2b3c4d").
std::string adapter_name(const Kernel &kernel);

} // namespace kbcc::tooling
