// The identity of the CUDA toolchain that compiles device code: folded into
// every kernel hash and every extraction cache key.
#pragma once

#include <string>

namespace kbcc::tooling {

// "<nvcc --version release line>; cccl <CCCL_VERSION>", e.g.
// "Cuda compilation tools, release 13.0, V13.0.88; cccl 3000001" (the format
// of driver::toolchain_id, which the build uses). Falls back
// to a description of what could not be read (never empty).
std::string toolchain_identity(const std::string &nvcc);

// The CUDA installation `nvcc` belongs to (its ../), or /usr/local/cuda when
// that directory holds no include/cuda_runtime.h.
std::string cuda_root_of(const std::string &nvcc);

} // namespace kbcc::tooling
