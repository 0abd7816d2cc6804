#include "agent/progress.h"

#include <cstdio>

namespace kbcc::agent {
namespace {

std::string duration_text(double s) {
  long t = static_cast<long>(s + 0.5);
  if (t >= 3600) return std::to_string(t / 3600) + "h" + std::to_string(t % 3600 / 60) + "m";
  if (t >= 60) return std::to_string(t / 60) + "m" + std::to_string(t % 60) + "s";
  return std::to_string(t) + "s";
}

} // namespace

std::string progress_line(long done, long total, const std::string &label, double elapsed) {
  const int width = 24;
  double frac = total > 0 ? static_cast<double>(done) / total : 0;
  if (frac > 1) frac = 1;
  int filled = static_cast<int>(frac * width);
  std::string bar = "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] ";
  std::string eta = done > 0 && done < total ? " ETA " + duration_text(elapsed / done * (total - done)) : "";
  std::string name = label.size() > 32 ? label.substr(0, 29) + "..." : label;
  return bar + std::to_string(done) + "/" + std::to_string(total) + " " + std::to_string(static_cast<int>(frac * 100)) +
         "% " + name + eta;
}

ProgressBar::ProgressBar(bool enabled) : enabled_(enabled), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(long done, long total, const std::string &label) {
  if (!enabled_) return;
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "\r\033[K%s", progress_line(done, total, label, elapsed).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (enabled_ && drawn_) std::fputc('\n', stderr);
  drawn_ = false;
}

} // namespace kbcc::agent
