// The two small headers clang 19 needs to parse CUDA 13 code: an empty
// texture_fetch_functions.h (clang's CUDA wrapper still includes it) and a
// forced include that declares the sm_100 intrinsics and cluster APIs.
#pragma once

#include "support/expected.h"

#include <string>

namespace kbcc::tooling {

// File name of the forced-include shim inside the shim directory.
inline constexpr const char *kShimHeader = "kbcc_cuda_shim.h";

// Writes both shims into `dir` (created when missing; rewritten only when
// their content differs). An empty `dir` means a private temporary directory
// created once per process. Returns the directory.
Expected<std::string> ensure_shims(const std::string &dir);

} // namespace kbcc::tooling
