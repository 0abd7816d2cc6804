#include "gpu/capture_policy.h"

#include <algorithm>

namespace kbcc::gpu {

CaptureVerdict CapturePolicy::decide(const std::string &kernel, const std::string &config, uint64_t bytes,
                                     uint64_t used) {
  KernelTally &t = tally_[kernel];
  t.launches++;
  if (per_config_[kernel + "/" + config] >= limits_.max_launches) {
    t.skipped_limit++;
    return CaptureVerdict::SkipLimit;
  }
  if (bytes > limits_.max_bytes && t.replayable > 0) {
    t.skipped_size++;
    return CaptureVerdict::SkipSize;
  }
  if (used + bytes > limits_.size_cap) {
    t.skipped_cap++;
    if (t.smallest_capped == 0 || bytes < t.smallest_capped) t.smallest_capped = bytes;
    if (t.cap_needed == 0 || used + bytes < t.cap_needed) t.cap_needed = used + bytes;
    return CaptureVerdict::SkipCap;
  }
  per_config_[kernel + "/" + config]++;
  return CaptureVerdict::Capture;
}

void CapturePolicy::stored(const std::string &kernel, const std::string &, const std::string &reason) {
  KernelTally &t = tally_[kernel];
  t.captured++;
  if (reason.empty())
    t.replayable++;
  else
    t.not_replayable = reason;
}

void CapturePolicy::skipped_other(const std::string &kernel) {
  KernelTally &t = tally_[kernel];
  t.launches++;
  t.skipped_other++;
}

void CapturePolicy::failed(const std::string &kernel) { tally_[kernel].skipped_other++; }

std::string size_flag_value(uint64_t bytes) {
  // The largest unit that still leaves two significant digits (1.7G -> 1741M),
  // or an exact multiple; rounded up so that the value always suffices.
  const char *units[] = {"", "K", "M", "G", "T"};
  for (int u = 4; u >= 1; --u) {
    uint64_t unit = 1ull << (10 * u);
    if (bytes >= 16 * unit || (bytes >= unit && bytes % unit == 0))
      return std::to_string((bytes + unit - 1) / unit) + units[u];
  }
  return std::to_string(bytes);
}

std::vector<std::string> kernels_without_capture(const std::map<std::string, KernelTally> &kernels) {
  std::vector<std::string> out;
  for (const auto &[name, t] : kernels) {
    if (t.replayable > 0 || t.launches == 0) continue;
    std::string line = name + ": no replayable capture (" + std::to_string(t.launches) + " launches): ";
    if (t.captured > 0)
      line += std::to_string(t.captured) + " captured, not replayable (" + t.not_replayable + ")";
    else if (t.skipped_cap > 0)
      line += "its smallest launch needs " + size_flag_value(t.smallest_capped) +
              " and the capture store's limit left too little; rerun with --max-total " + size_flag_value(t.cap_needed);
    else if (t.skipped_other == t.launches)
      line += "every launch was inside a CUDA graph stream capture or failed to copy (see the counts above)";
    else
      line += "every launch was skipped by --max-launches";
    out.push_back(std::move(line));
  }
  return out;
}

uint64_t total_cap_needed(const std::map<std::string, KernelTally> &kernels, uint64_t used) {
  uint64_t extra = 0;
  for (const auto &[name, t] : kernels)
    if (t.replayable == 0 && t.captured == 0 && t.skipped_cap > 0) extra += t.smallest_capped;
  return extra ? used + extra : 0;
}

} // namespace kbcc::gpu
