// Which launches `kbcc capture` records, decided without a GPU so that the
// rules are unit-tested, and what the summary says about kernels that got no
// replayable capture. The capture library asks decide() for every launch of
// a wanted kernel and reports what it stored with stored().
//
// Rules, in order:
//   1. max_launches per kernel and launch configuration;
//   2. a launch whose buffers exceed max_bytes is recorded only while its
//      kernel has no replayable capture (so every kernel gets one by default);
//   3. nothing is recorded that would take the capture store past size_cap
//      (capture_max_size, or --max-total).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kbcc::gpu {

struct CaptureLimits {
  unsigned max_launches = 4;
  uint64_t max_bytes = 256ull << 20;
  uint64_t size_cap = 1ull << 30;
};

enum class CaptureVerdict { Capture, SkipLimit, SkipSize, SkipCap };

// What happened to one kernel's launches in a capture run.
struct KernelTally {
  uint64_t launches = 0;        // launches seen (after the kernel filter)
  uint64_t captured = 0;        // stored
  uint64_t replayable = 0;      // stored and replayable
  uint64_t skipped_limit = 0;   // rule 1
  uint64_t skipped_size = 0;    // rule 2 (the kernel had a replayable capture already)
  uint64_t skipped_cap = 0;     // rule 3
  uint64_t skipped_other = 0;   // stream capture, errors (counted by the library)
  uint64_t smallest_capped = 0; // bytes of its smallest launch skipped by rule 3 (0 = none)
  uint64_t cap_needed = 0;      // the smallest size_cap that would have taken one of them
  std::string not_replayable;   // reason of its last stored capture that was not replayable
};

class CapturePolicy {
public:
  explicit CapturePolicy(CaptureLimits limits) : limits_(limits) {}

  // Decides for a launch of `kernel` with launch configuration `config`
  // whose buffers total `bytes`, while the capture store holds `used` bytes.
  // Counts the launch and any skip in the kernel's tally.
  CaptureVerdict decide(const std::string &kernel, const std::string &config, uint64_t bytes, uint64_t used);
  // A launch decide() admitted was stored; `reason` is why it is not
  // replayable ("" = replayable).
  void stored(const std::string &kernel, const std::string &config, const std::string &reason);
  // A launch was skipped for a reason of the library's own (stream capture, error).
  void skipped_other(const std::string &kernel);
  // A launch decide() admitted could not be copied or stored.
  void failed(const std::string &kernel);

  const std::map<std::string, KernelTally> &kernels() const { return tally_; }
  const CaptureLimits &limits() const { return limits_; }

private:
  CaptureLimits limits_;
  std::map<std::string, unsigned> per_config_; // kernel + config -> launches admitted
  std::map<std::string, KernelTally> tally_;
};

// One line per kernel without a replayable capture, saying why and what to
// change: the --max-total value that would have admitted its smallest
// launch, "only inside CUDA graphs", "not replayable (reason)", ... Empty
// when every kernel that was launched got one.
std::vector<std::string> kernels_without_capture(const std::map<std::string, KernelTally> &kernels);

// The --max-total value that would have admitted the smallest launch of
// every kernel left without a capture by the cap: `used` (the store now)
// plus those launches; 0 when the cap left none out.
uint64_t total_cap_needed(const std::map<std::string, KernelTally> &kernels, uint64_t used);

// Bytes as a size flag value, rounded up: "1536M", "2G", "17K", "100".
std::string size_flag_value(uint64_t bytes);

} // namespace kbcc::gpu
