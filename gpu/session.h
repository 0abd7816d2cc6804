// A kbcc-gpu runner kept running for many requests (`kbcc-gpu serve`), so the
// optimization loop pays the process start, the CUDA context and the upload
// of a capture's buffers once per kernel, not once per candidate. A runner
// that crashes, hangs or loses its CUDA context (a faulting candidate) is
// replaced on the next request; the request that killed it fails alone.
#pragma once

#include "gpu/harness.h"

#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kbcc::gpu {

struct LaunchShape {
  Dim3 grid, block;
  uint32_t shared = 0;
};

// "GX,GY,GZ,BX,BY,BZ,SHARED", the form kbcc-gpu's --launch takes.
std::string launch_arg(const LaunchShape &shape);

// How a candidate is checked on one capture.
struct CheckRequest {
  std::string candidate;            // cubin holding the candidate under the kernel's name
  std::string reference;            // cubin of the original for this GPU; "" = the captured module
  std::optional<LaunchShape> shape; // the candidate's launch; none = the captured one
  uint64_t reassociation_n = 0;     // > 0: add the reordered-summation bound to float tolerances
  bool calibrate = true;            // noise from two reference runs
  unsigned fuzz_rounds = 2;
  uint64_t seed = 1;
  double scale = 0.25;
  // Other values of the kernel's size arguments (smaller than captured), each
  // checked against the reference with the candidate's launch for them.
  struct Variation {
    std::map<unsigned, int64_t> params;
    std::optional<LaunchShape> shape;
  };
  std::vector<Variation> variations;
  std::map<unsigned, ElementType> types; // element types by parameter index
};

struct CheckReport {
  bool launched = false;
  bool pass = false;  // captured outputs, fuzzed inputs and variations all within tolerance
  std::string error;  // the candidate did not run (fault, missing kernel) or the runner died
  std::string reason; // the first failure, for people
  double max_error = 0;
  double tolerance = 0; // the largest absolute tolerance applied
  double seconds = 0;   // runner time
};

struct TimeRequest {
  std::string candidate, reference; // as in CheckRequest
  std::optional<LaunchShape> shape;
  std::string runs = "v"; // 'o' reference, 'v' candidate, interleaved
  unsigned warmup = 3, reps = 20;
  bool flush_l2 = true;
};

class Session {
public:
  explicit Session(RunnerOptions options = {});
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  // Errors are infrastructure failures (no runner, unreadable capture); a
  // wrong, faulting or hanging candidate is a report with pass=false.
  Expected<CheckReport> check(const CaptureInfo &capture, const CheckRequest &request);
  Expected<std::vector<TimingStats>> time(const CaptureInfo &capture, const TimeRequest &request);
  // Frees the device memory of the captures the runner holds.
  void drop();
  // Runner time of every request so far (the GPU time the loop spent).
  double seconds() const { return seconds_; }
  // Runners started so far (1 + restarts after crashes).
  int starts() const { return starts_; }

private:
  struct Runner;
  // Sends one JSON request; the parsed response, or {"error","crashed"} when
  // the runner died or hung (it is then restarted on the next request).
  Expected<std::string> request(const std::string &json_line);
  // Adds "expect_ms", the longest launch of capture `c` timed so far, to a
  // request: the runner's watchdog bounds even its first launch by it.
  void add_expectation(nlohmann::json &request, const CaptureInfo &c) const;
  RunnerOptions options_;
  std::map<std::string, double> longest_ms_; // per capture manifest, from time() answers
  std::unique_ptr<Runner> runner_;
  double seconds_ = 0;
  int starts_ = 0;
};

} // namespace kbcc::gpu
