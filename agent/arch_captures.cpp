#include "agent/arch_captures.h"

#include "support/log.h"

#include <algorithm>

namespace kbcc::agent {
namespace {

// Why replay `r` of the recompiled original does not reproduce the capture.
std::string not_reproduced(const gpu::ReplayReport &r, const std::string &arch) {
  std::string head = "the original recompiled for " + arch;
  if (!r.launched || !r.error.empty()) return head + " does not run: " + r.error;
  for (const auto &b : r.buffers)
    if (!b.pass)
      return head + " does not reproduce its outputs: buffer " + std::to_string(b.index) + " (" + b.name +
             "): " + std::to_string(b.mismatches) + " mismatches, max abs error " + std::to_string(b.max_abs_error);
  return head + " does not reproduce its outputs";
}

} // namespace

bool needs_reference(const gpu::CaptureInfo &c, const KernelTask &task) {
  return c.arch != task.arch || (!c.kernel_hash.empty() && c.kernel_hash != task.kernel.hash);
}

std::map<unsigned, gpu::ElementType> param_types(const KernelTask &task) {
  std::map<unsigned, gpu::ElementType> types;
  for (size_t i = 0; i < task.kernel.params.size(); ++i)
    if (task.kernel.params[i].is_pointer)
      types[static_cast<unsigned>(i)] = gpu::element_type_from_name(task.kernel.params[i].pointee_type);
  return types;
}

Expected<ArchCaptures> sort_captures(const KernelTask &task, std::vector<gpu::CaptureInfo> captures,
                                     const std::string &baseline_cubin, const gpu::ReplayOptions &options) {
  ArchCaptures out;
  gpu::ReplayOptions ro = options;
  ro.calibrate = false; // calibration would take the difference itself for noise
  ro.param_types = param_types(task);
  for (gpu::CaptureInfo &c : captures) {
    if (!needs_reference(c, task)) {
      out.usable.push_back(std::move(c));
      continue;
    }
    c.reference = baseline_cubin;
    auto r = gpu::replay(c, "", ro);
    if (!r) return r.error();
    if (r->pass) {
      out.usable.push_back(std::move(c));
      continue;
    }
    out.skipped.push_back("capture " + c.id + " (recorded on " + (c.arch.empty() ? "an unknown arch" : c.arch) +
                          "): " + not_reproduced(*r, task.arch));
  }
  return out;
}

Expected<std::vector<gpu::CaptureInfo>> usable_captures(const KernelTask &task, std::vector<gpu::CaptureInfo> captures,
                                                        const std::function<Expected<std::string>()> &build_baseline,
                                                        const gpu::ReplayOptions &options) {
  std::string baseline;
  if (std::any_of(captures.begin(), captures.end(), [&](const auto &c) { return needs_reference(c, task); })) {
    auto cubin = build_baseline();
    if (!cubin)
      return make_error("the original kernel does not compile for " + task.arch + ": " +
                            cubin.error().message.substr(0, 2000),
                        "baseline-compile");
    baseline = *cubin;
  }
  auto sorted = sort_captures(task, std::move(captures), baseline, options);
  if (!sorted) return sorted.error();
  std::string reasons;
  for (const auto &why : sorted->skipped) {
    log_line("kbcc optimize: " + task.kernel.qualified_name + " on " + task.arch + ": skipped " + why);
    reasons += "; " + why;
  }
  if (sorted->usable.empty())
    return make_error("no capture of " + task.kernel.qualified_name + " is usable on " + task.arch + reasons,
                      "no-captures");
  return std::move(sorted->usable);
}

} // namespace kbcc::agent
