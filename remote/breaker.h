// Circuit breaker for the remote store, persisted in a small file under
// $KBCC_DIR so that successive kbcc processes of one build skip a dead remote:
// after `failures` consecutive failures it opens for `open_for`, then lets one
// request through (half-open); a success closes it again.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace kbcc::remote {

struct BreakerPolicy {
  int failures = 3;
  std::chrono::seconds open_for{60};
};

class CircuitBreaker {
public:
  CircuitBreaker(std::string state_file, BreakerPolicy policy) : file_(std::move(state_file)), policy_(policy) {}

  // Whether a request may go out now (false while open).
  bool allow() const;
  // Records a success (closes the breaker).
  void record_success();
  // Records a failure; true when the breaker is open after it.
  bool record_failure();
  // Consecutive failures recorded so far.
  int failures() const;
  // Unix time (ms) until which the breaker is open; 0 when closed.
  int64_t open_until_ms() const;
  const BreakerPolicy &policy() const { return policy_; }

private:
  struct State {
    int failures = 0;
    int64_t open_until_ms = 0;
  };
  State read() const;
  void write(const State &s);

  std::string file_;
  BreakerPolicy policy_;
};

// The breaker state file for remote `location` under `kbcc_dir`.
std::string breaker_file(const std::string &kbcc_dir, const std::string &location);

} // namespace kbcc::remote
