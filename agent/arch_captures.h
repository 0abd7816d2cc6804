// Which captures serve a kernel's task on the local GPU. Captures are inputs
// recorded on any arch. One taken from the task's own kernel on task.arch
// replays against the module it captured. Any other one (recorded on another
// arch, or from the same definition built under another hash) serves only
// when the original kernel recompiled for task.arch reproduces its captured
// outputs; it then replays with that cubin as its reference module
// (gpu::CaptureInfo::reference), and is skipped with the reason otherwise.
#pragma once
#include "agent/types.h"
#include "gpu/harness.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kbcc::agent {

// Whether `capture` needs the recompiled original as its reference for `task`.
bool needs_reference(const gpu::CaptureInfo &capture, const KernelTask &task);

// Element types of the buffers `task`'s pointer parameters point to.
std::map<unsigned, gpu::ElementType> param_types(const KernelTask &task);

struct ArchCaptures {
  std::vector<gpu::CaptureInfo> usable; // in the given order, reference set where needed
  std::vector<std::string> skipped;     // "capture <id> (recorded on sm_80): <reason>"
};

// Sorts `captures` of `task`: each one that needs a reference is replayed
// once with `baseline_cubin` (the original compiled for task.arch), without
// noise calibration, and kept only when every buffer matches its captured
// output within the type's tolerance. Error: a replay could not run at all
// (no runner, unreadable capture).
Expected<ArchCaptures> sort_captures(const KernelTask &task, std::vector<gpu::CaptureInfo> captures,
                                     const std::string &baseline_cubin, const gpu::ReplayOptions &options);

// The usable captures of `task`: sort_captures, compiling the baseline with
// `build_baseline` only when a capture needs it. Logs one line per skipped
// capture. Errors: "baseline-compile" when the original does not compile,
// "no-captures" naming every reason when no capture is left.
Expected<std::vector<gpu::CaptureInfo>> usable_captures(const KernelTask &task, std::vector<gpu::CaptureInfo> captures,
                                                        const std::function<Expected<std::string>()> &build_baseline,
                                                        const gpu::ReplayOptions &options);

} // namespace kbcc::agent
