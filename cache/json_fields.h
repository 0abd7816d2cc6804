// Reading typed fields out of JSON objects with errors that name the origin
// and field path ("file.json: $.timing.gpu_name: expected a string").
#pragma once

#include "support/expected.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kbcc::cache {

// Reads fields of one JSON object; the first problem is kept in error().
class FieldReader {
public:
  FieldReader(const nlohmann::json &object, std::string origin, std::string path = "$");

  // Each reads `key` into `out` when present; a wrong type records an error.
  // `required` makes absence an error too.
  FieldReader &str(const char *key, std::string &out, bool required = false);
  FieldReader &num(const char *key, double &out, bool required = false);
  FieldReader &u64(const char *key, uint64_t &out, bool required = false);
  FieldReader &u32(const char *key, uint32_t &out, bool required = false);
  FieldReader &i64(const char *key, int64_t &out, bool required = false);
  FieldReader &boolean(const char *key, bool &out, bool required = false);
  FieldReader &strings(const char *key, std::vector<std::string> &out, bool required = false);
  // A nested object (absent = empty object unless required).
  const nlohmann::json &object(const char *key, bool required = false);
  std::string path(const char *key) const { return path_ + "." + key; }
  const std::string &origin() const { return origin_; }

  bool ok() const { return error_.message.empty(); }
  // Records an error for `key` (when none is recorded yet).
  void fail(const std::string &key_path, const std::string &problem);
  Error error() const { return error_; }

private:
  const nlohmann::json *find(const char *key, bool required);
  const nlohmann::json &obj_;
  std::string origin_, path_;
  Error error_;
};

} // namespace kbcc::cache
