// FieldReader: typed JSON field access with path-naming errors.
#include "cache/json_fields.h"

#include "cache/env.h"

namespace kbcc::cache {
namespace {
const nlohmann::json &empty_object() {
  static const nlohmann::json e = nlohmann::json::object();
  return e;
}
} // namespace

FieldReader::FieldReader(const nlohmann::json &object, std::string origin, std::string path)
    : obj_(object), origin_(std::move(origin)), path_(std::move(path)) {
  if (!obj_.is_object()) fail(path_, "expected an object");
}

void FieldReader::fail(const std::string &key_path, const std::string &problem) {
  if (ok()) error_ = make_error(origin_ + ": " + key_path + ": " + problem, kErrBadRecord);
}

const nlohmann::json *FieldReader::find(const char *key, bool required) {
  if (!obj_.is_object()) return nullptr;
  auto it = obj_.find(key);
  if (it == obj_.end() || it->is_null()) {
    if (required) fail(path(key), "required field is missing");
    return nullptr;
  }
  return &*it;
}

FieldReader &FieldReader::str(const char *key, std::string &out, bool required) {
  if (auto *v = find(key, required)) {
    if (v->is_string())
      out = v->get<std::string>();
    else
      fail(path(key), "expected a string");
  }
  return *this;
}

FieldReader &FieldReader::num(const char *key, double &out, bool required) {
  if (auto *v = find(key, required)) {
    if (v->is_number())
      out = v->get<double>();
    else
      fail(path(key), "expected a number");
  }
  return *this;
}

FieldReader &FieldReader::u64(const char *key, uint64_t &out, bool required) {
  if (auto *v = find(key, required)) {
    if (v->is_number_unsigned())
      out = v->get<uint64_t>();
    else if (v->is_number_integer() && v->get<int64_t>() >= 0)
      out = static_cast<uint64_t>(v->get<int64_t>());
    else
      fail(path(key), "expected a non-negative integer");
  }
  return *this;
}

FieldReader &FieldReader::u32(const char *key, uint32_t &out, bool required) {
  uint64_t v = out;
  u64(key, v, required);
  if (v > UINT32_MAX)
    fail(path(key), "value too large");
  else
    out = static_cast<uint32_t>(v);
  return *this;
}

FieldReader &FieldReader::i64(const char *key, int64_t &out, bool required) {
  if (auto *v = find(key, required)) {
    if (v->is_number_integer())
      out = v->get<int64_t>();
    else
      fail(path(key), "expected an integer");
  }
  return *this;
}

FieldReader &FieldReader::boolean(const char *key, bool &out, bool required) {
  if (auto *v = find(key, required)) {
    if (v->is_boolean())
      out = v->get<bool>();
    else
      fail(path(key), "expected true or false");
  }
  return *this;
}

FieldReader &FieldReader::strings(const char *key, std::vector<std::string> &out, bool required) {
  if (auto *v = find(key, required)) {
    if (!v->is_array()) {
      fail(path(key), "expected an array of strings");
      return *this;
    }
    out.clear();
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string()) {
        fail(path(key) + "[" + std::to_string(i) + "]", "expected a string");
        return *this;
      }
      out.push_back((*v)[i].get<std::string>());
    }
  }
  return *this;
}

const nlohmann::json &FieldReader::object(const char *key, bool required) {
  auto *v = find(key, required);
  if (!v) return empty_object();
  if (!v->is_object()) {
    fail(path(key), "expected an object");
    return empty_object();
  }
  return *v;
}

} // namespace kbcc::cache
