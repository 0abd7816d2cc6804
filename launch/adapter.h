// Host launch adapters: the C++ that a rewritten unit calls at each launch
// site of a kernel with launch-changing variants. Per launch it reads the
// current device's compute capability (once per device, cached), and when a
// variant exists for it and every precondition holds, launches the variant
// with the mapped configuration; otherwise the original kernel with the
// original configuration, on the same stream, through the same API (so
// cudaGetLastError/cudaPeekAtLastError and graph capture behave the same).
//
// With KBCC_ADAPTER_STATS set when the program runs, each unit counts its
// adapters' launches and fallbacks and appends one JSON line per adapter to
// adapter-stats.jsonl at exit (docs/kernels.md), which `kbcc stats` reads.
#pragma once

#include "launch/mapping.h"

#include <string>
#include <vector>

namespace kbcc::launch {

struct AdapterVariant {
  int arch = 0;            // the arch it is validated for, as __CUDA_ARCH__ (e.g. 900)
  std::string kernel_ref;  // C++ name of the variant kernel as seen from the adapter
  LaunchMapping mapping;
};

struct AdapterSpec {
  std::string name;        // C++ identifier of the adapter struct
  std::string kernel_ref;  // C++ name of the original kernel as seen from the adapter
  std::string kernel_hash; // for statistics
  std::string display;     // qualified kernel name, for statistics
  std::vector<ParamInfo> params;
  std::vector<AdapterVariant> variants; // distinct archs
};

// Host-only helpers every adapter uses; emitted once at the top of a unit.
std::string runtime_preamble();

// The adapter struct. Call forms the rewriter routes through it:
//   K<<<g, b, s, st>>>(args)               -> NAME(g, b, s, st)(args)
//   cudaLaunchKernel(f, g, b, args, s, st) -> NAME::launch_kernel(f, g, b, args, s, st)
//   cudaLaunchKernelEx(cfg, K, args...)    -> NAME::launch_ex(cfg, K, args...)
//   cudaLaunchKernelExC(cfg, f, args)      -> NAME::launch_ex_c(cfg, f, args)
// Errors: a mapping that does not check against the parameters.
Expected<std::string> adapter_definition(const AdapterSpec &spec);

// The C++ identifier of a variant kernel for `arch` (e.g. "scale__kbcc_sm_90").
std::string variant_kernel_name(const std::string &kernel, const std::string &arch);

} // namespace kbcc::launch
