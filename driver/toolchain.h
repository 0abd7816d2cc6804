// The toolchain identity that goes into kernel hashes: nvcc's version line
// plus the CCCL version of its headers. Cached per nvcc binary (path, size,
// mtime) under $KBCC_DIR/toolchain so builds do not run `nvcc --version` each time.
#pragma once

#include "support/expected.h"

#include <string>

namespace kbcc::driver {

// E.g. "Cuda compilation tools, release 13.0, V13.0.88; cccl 3000100".
Expected<std::string> toolchain_id(const std::string &nvcc, const std::string &kbcc_dir);

} // namespace kbcc::driver
