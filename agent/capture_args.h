// What a capture tells about a kernel's arguments: the integers and
// addresses it was launched with, decoded from the capture's manifest with
// the kernel's parameter list. The runner evaluates launch mappings with
// them; the transforms read the integers to judge what a rewrite can gain.
#pragma once

#include "gpu/harness.h"
#include "launch/mapping.h"
#include "support/expected.h"
#include "tooling/kernel.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbcc::agent {

struct CaptureArgs {
  gpu::CaptureInfo info;
  launch::Launch launch; // the captured launch
  std::vector<std::string> names;
  std::vector<std::optional<int64_t>> integers;  // per parameter: its value when an integer
  std::vector<std::optional<uint64_t>> pointers; // per parameter: its address when a pointer
};

// The arguments of `c`, read from its manifest with the kernel's parameter
// list `params`. Errors: the manifest cannot be read or parsed (naming it).
Expected<CaptureArgs> read_capture_args(const gpu::CaptureInfo &c, const std::vector<tooling::Param> &params);

// The integer arguments of `a` by parameter name.
std::map<std::string, int64_t> integer_args(const CaptureArgs &a);

} // namespace kbcc::agent
