#include "remote/breaker.h"

#include "support/fs.h"
#include "support/hash.h"

#include <sstream>

namespace kbcc::remote {
namespace {

int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

} // namespace

std::string breaker_file(const std::string &kbcc_dir, const std::string &location) {
  return kbcc_dir + "/remote/breaker-" + hash_hex(location).substr(0, 16);
}

CircuitBreaker::State CircuitBreaker::read() const {
  State s;
  auto text = read_file(file_);
  if (!text) return s; // absent or unreadable: closed
  std::istringstream in(*text);
  if (!(in >> s.failures >> s.open_until_ms)) return State{};
  return s;
}

void CircuitBreaker::write(const State &s) {
  (void)write_file_atomic(file_, std::to_string(s.failures) + " " + std::to_string(s.open_until_ms) + "\n");
}

bool CircuitBreaker::allow() const { return read().open_until_ms <= now_ms(); }

void CircuitBreaker::record_success() {
  if (read().failures != 0) write(State{});
}

bool CircuitBreaker::record_failure() {
  State s = read();
  s.failures += 1;
  if (s.failures >= policy_.failures)
    s.open_until_ms = now_ms() + std::chrono::duration_cast<std::chrono::milliseconds>(policy_.open_for).count();
  write(s);
  return s.open_until_ms > now_ms();
}

int CircuitBreaker::failures() const { return read().failures; }

int64_t CircuitBreaker::open_until_ms() const {
  int64_t t = read().open_until_ms;
  return t > now_ms() ? t : 0;
}

} // namespace kbcc::remote
