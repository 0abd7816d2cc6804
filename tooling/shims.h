// The small headers clang 19 needs to parse CUDA 13 code as nvcc sees it:
// an empty texture_fetch_functions.h (clang's CUDA wrapper still includes
// it) and a forced include that adds what clang's CUDA wrappers leave out.
// The forced include is generated from the CUDA headers' own declarations
// (see generate_forced_include), so it follows the installed toolkit.
#pragma once

#include "support/expected.h"

#include <string>
#include <vector>

namespace kbcc::tooling {

// File name of the forced-include shim inside the shim directory.
inline constexpr const char *kShimHeader = "kbcc_cuda_shim.h";

// The texts the forced include is generated from.
struct ShimSources {
  std::string sm32_intrinsics; // <cuda>/include/sm_32_intrinsics.h ("" when absent)
  std::string math_functions;  // <cuda>/include/crt/math_functions.h ("" when absent)
  std::string clang_headers;   // every __clang_cuda_*.h of clang's resource directory, concatenated
};

// Names of the functions `header` declares after `decl_macro`
// (e.g. "__SM_32_INTRINSICS_DECL__"), in order of first appearance.
std::vector<std::string> declared_functions(const std::string &header, const std::string &decl_macro);

// Names of the functions `header` declares with exactly one `long double`
// parameter (CUDA's math_functions.h: isfinite, isnan, ...), without names
// starting with '_' (internal ones, and Windows CRT ones such as _ldsign), in
// order of first appearance.
std::vector<std::string> long_double_functions(const std::string &header);

// True when `name` is called or defined anywhere in `code` outside comments
// (an identifier followed by '(').
bool mentions_function(const std::string &code, const std::string &name);

// The forced include: sm_100 intrinsics and cluster APIs; CUDA's
// sm_32_intrinsics.h (cache-hinted __ldcs/__ldcg/__ldca/__ldlu/__ldcv and
// __stcs/__stcg/__stwb/__stwt on every scalar and vector type), which clang
// keeps out with its include guard, included with the names clang defines
// itself renamed away; and device overloads taking `long double` of the
// classification functions math_functions.h declares for it (nvcc treats
// long double as double in device code).
std::string generate_forced_include(const ShimSources &sources);

// Writes both shims under `dir` (created when missing) for the toolkit at
// `cuda_root`, in a subdirectory named after the toolkit and clang headers
// they were generated from (so toolkits never overwrite each other's).
// An empty `dir` means a private temporary directory created once per
// process and removed when it exits. Returns the directory holding the shims.
Expected<std::string> ensure_shims(const std::string &dir, const std::string &cuda_root);

} // namespace kbcc::tooling
