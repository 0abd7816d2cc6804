// The remote store: one small interface (get, put, check, list, location)
// with one file per backend (http_store.cpp, redis_store.cpp,
// memory_store.cpp) and a guard (guarded_store.cpp) that adds read-only mode
// and the circuit breaker. Keys are relative paths such as
// "variants/<kernel>-<arch>/<content-hash>" ([A-Za-z0-9._@/-] only).
#pragma once

#include "support/expected.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kbcc {
class Config;
}

namespace kbcc::remote {

class Store {
public:
  virtual ~Store() = default;
  // The bytes stored under `key`; nullopt when the key does not exist.
  virtual Expected<std::optional<std::string>> get(const std::string &key) = 0;
  // Stores `data` under `key` (replacing it).
  virtual Status put(const std::string &key, const std::string &data) = 0;
  // Whether `key` exists.
  virtual Expected<bool> check(const std::string &key) = 0;
  // The names directly under the folder `prefix` (e.g. "kb/"), sorted; a
  // sub-folder is listed with a trailing '/'. Empty when the folder is absent.
  virtual Expected<std::vector<std::string>> list(const std::string &prefix) = 0;
  // Where the store is, for messages (the URL without credentials).
  virtual std::string location() const = 0;
};

struct StoreOptions {
  std::chrono::milliseconds timeout{500}; // per request (connect + transfer)
};

// In-memory store (unit tests).
std::unique_ptr<Store> make_memory_store();
// http(s)://host[:port][/path]: GET/PUT/HEAD/PROPFIND against a WebDAV server.
Expected<std::unique_ptr<Store>> make_http_store(const std::string &url, const StoreOptions &options);
// redis://host[:port][/db]: strings under "kbcc:<key>", folders as sets.
Expected<std::unique_ptr<Store>> make_redis_store(const std::string &url, const StoreOptions &options);
// The backend for `url` by scheme; an Error names an unknown scheme.
Expected<std::unique_ptr<Store>> make_store(const std::string &url, const StoreOptions &options);

// `url` without the credentials of its authority ("user:password@"), for messages.
std::string redact_url(const std::string &url);

// Whether `key` is a valid store key (non-empty, [A-Za-z0-9._@/-], no "..").
bool valid_key(const std::string &key);

} // namespace kbcc::remote

namespace kbcc::remote {

struct GuardOptions {
  bool read_only = false;   // put() is refused
  std::string breaker_file; // where the circuit breaker keeps its state
  int breaker_failures = 3; // consecutive failures that open the breaker
  std::chrono::seconds breaker_open_for{60};
  bool skip_while_open = true; // false for explicit commands: they try anyway
};

// Wraps `inner` with read-only mode and the circuit breaker. The first
// failure (timeout, connection, garbage, HTTP error) writes one line to
// kbcc's log and makes every later request of this process fail at once;
// failures are also counted across processes, and while the breaker is open
// requests fail at once without touching the network.
std::unique_ptr<Store> guard_store(std::unique_ptr<Store> inner, GuardOptions options);

// The configured remote (keys remote, remote_timeout, remote_read_only) behind
// guard_store with its breaker under $KBCC_DIR/remote/. Error "remote-none"
// when no remote is configured, "remote-config" when the URL is invalid.
// `for_command`: an explicit command (kbcc kb push...) that tries the remote
// even while the breaker is open.
Expected<std::unique_ptr<Store>> open_remote(const Config &config, bool for_command = false);

} // namespace kbcc::remote
