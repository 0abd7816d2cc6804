// kbcc configuration: one table row per key (key, environment variable,
// default, meaning), read from defaults < config file < environment.
// docs/config.md documents every row; tests/lit/driver/config-keys.test checks
// that the two agree.
#pragma once

#include "support/expected.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kbcc {

struct ConfigKey {
  const char *key;            // name in the config file, e.g. "max_size"
  const char *env;            // environment variable, e.g. "KBCC_MAX_SIZE"
  const char *default_value;  // textual default; may reference $KBCC_DIR as "{dir}"
  const char *meaning;        // one-line description (shown by `kbcc config --list`)
};

// Every configuration key kbcc knows, in documentation order.
const std::vector<ConfigKey> &config_keys();

class Config {
public:
  // Loads defaults, then the config file ($KBCC_CONFIG, else
  // $KBCC_DIR/kbcc.conf), then KBCC_* environment variables. A malformed file
  // or an unknown key gives an Error naming the file and line.
  static Expected<Config> load();
  // A configuration made only of defaults and `overrides` (for tests).
  static Config with(const std::map<std::string, std::string> &overrides);

  // The value of `key` (which must be in config_keys()).
  const std::string &get(const std::string &key) const;
  // Boolean value: 1/true/yes/on vs 0/false/no/off/empty.
  bool get_bool(const std::string &key) const;
  // Size with optional K/M/G/T suffix (powers of 1024); 0 when unparsable.
  uint64_t get_size(const std::string &key) const;
  double get_double(const std::string &key) const;
  // Where the value came from: "default", "file:<path>:<line>" or "env:<VAR>".
  const std::string &origin(const std::string &key) const;

  // The KBCC_DIR root (expanded).
  const std::string &dir() const { return get("dir"); }
  // Path of the config file that was (or would be) read.
  const std::string &file() const { return file_; }

private:
  std::map<std::string, std::string> values_, origins_;
  std::string file_;
};

// Parses "10G", "512M", "1024" into bytes; Error on garbage.
Expected<uint64_t> parse_size(const std::string &text);

}  // namespace kbcc
