// Read-only mode, per-process fail-fast and the persisted circuit breaker
// around any Store (see store.h).
#include "remote/breaker.h"
#include "remote/store.h"
#include "support/config.h"
#include "support/log.h"

#include <ctime>

namespace kbcc::remote {
namespace {

bool is_outage(const Error &e) {
  return e.code == "remote-io" || e.code == "remote-timeout" || e.code == "remote-garbage" || e.code == "remote-http";
}

std::string utc_time(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%H:%M:%SZ", &tm);
  return buf;
}

class GuardedStore : public Store {
public:
  GuardedStore(std::unique_ptr<Store> inner, GuardOptions options)
      : inner_(std::move(inner)), options_(std::move(options)),
        breaker_(options_.breaker_file, BreakerPolicy{options_.breaker_failures, options_.breaker_open_for}) {}

  Expected<std::optional<std::string>> get(const std::string &key) override {
    if (auto s = admit(); !s) return s.error();
    return observe(inner_->get(key));
  }
  Status put(const std::string &key, const std::string &data) override {
    if (options_.read_only)
      return make_error("remote " + location() + " is read-only (remote_read_only)", "remote-read-only");
    if (auto s = admit(); !s) return s;
    Status s = inner_->put(key, data);
    if (s)
      breaker_.record_success();
    else if (is_outage(s.error()))
      fail(s.error());
    return s;
  }
  Expected<bool> check(const std::string &key) override {
    if (auto s = admit(); !s) return s.error();
    return observe(inner_->check(key));
  }
  Expected<std::vector<std::string>> list(const std::string &prefix) override {
    if (auto s = admit(); !s) return s.error();
    return observe(inner_->list(prefix));
  }
  std::string location() const override { return inner_->location(); }

private:
  // Whether a request may go out; an Error (logged once) when it may not.
  Status admit() {
    if (down_)
      return make_error("remote " + location() + " skipped: it failed earlier in this process", "remote-skipped");
    if (!options_.skip_while_open || breaker_.allow()) return Status::ok();
    down_ = true;
    std::string msg = "remote " + location() + " skipped: circuit breaker open after " +
                      std::to_string(breaker_.failures()) + " failures, next try after " +
                      utc_time(breaker_.open_until_ms());
    log_line(msg);
    return make_error(msg, "remote-open");
  }

  template <class T> Expected<T> observe(Expected<T> r) {
    if (r)
      breaker_.record_success();
    else if (is_outage(r.error()))
      fail(r.error());
    return r;
  }

  void fail(const Error &e) {
    down_ = true;
    bool open = breaker_.record_failure();
    std::string tail = open ? "circuit breaker open for " + std::to_string(options_.breaker_open_for.count()) + " s"
                            : "failure " + std::to_string(breaker_.failures()) + " of " +
                                  std::to_string(options_.breaker_failures) + " before the circuit breaker opens";
    log_line("remote unavailable, continuing without it: " + e.message + " (" + tail + ")");
  }

  std::unique_ptr<Store> inner_;
  GuardOptions options_;
  CircuitBreaker breaker_;
  bool down_ = false;
};

} // namespace

std::unique_ptr<Store> guard_store(std::unique_ptr<Store> inner, GuardOptions options) {
  return std::make_unique<GuardedStore>(std::move(inner), std::move(options));
}

Expected<std::unique_ptr<Store>> open_remote(const Config &config, bool for_command) {
  const std::string &url = config.get("remote");
  if (url.empty()) return make_error("no remote store configured (set KBCC_REMOTE)", "remote-none");
  double ms = config.get_double("remote_timeout");
  if (ms <= 0)
    return make_error(config.origin("remote_timeout") + ": remote_timeout must be a positive number of milliseconds",
                      "remote-config");
  StoreOptions so;
  so.timeout = std::chrono::milliseconds(static_cast<int64_t>(ms));
  auto store = make_store(url, so);
  if (!store) return store.error();
  GuardOptions go;
  go.read_only = config.get_bool("remote_read_only");
  go.skip_while_open = !for_command;
  go.breaker_file = breaker_file(config.dir(), (*store)->location());
  return guard_store(std::move(*store), go);
}

} // namespace kbcc::remote
