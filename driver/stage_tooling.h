// The tooling-backed compile stages: how a compile unit becomes a parse request.
#pragma once

#include "driver/stages.h"
#include "tooling/request.h"

#include <string>

namespace kbcc::driver {

// The parse request for `unit` on `arch`: include flags, the flags that can
// change device code, std, toolchain and shims under `kbcc_dir`. Builds and
// `kbcc explain` both use it, so their kernel hashes agree.
tooling::ParseRequest parse_request_for(const CompileUnit &unit, const std::string &arch, const std::string &kbcc_dir);

} // namespace kbcc::driver
