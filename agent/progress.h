// A one-line progress bar with an ETA, drawn on stderr only when it is a TTY.
#pragma once
#include <chrono>
#include <string>

namespace kbcc::agent {

class ProgressBar {
public:
  // Draws only when `enabled` (normally isatty(2)).
  explicit ProgressBar(bool enabled);
  ~ProgressBar();
  // Redraws "[#####.....] done/total pct label ETA 1m20s".
  void update(long done, long total, const std::string &label);
  // Ends the line (the next output starts on a fresh line).
  void finish();

private:
  bool enabled_, drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

// The bar's text for the given state (exposed for tests).
std::string progress_line(long done, long total, const std::string &label, double elapsed_seconds);

} // namespace kbcc::agent
