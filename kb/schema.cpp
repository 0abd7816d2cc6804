// JSON Schema subset validator (see schema.h for the keywords supported).
#include "kb/schema.h"

#include <cmath>
#include <map>
#include <regex>
#include <set>

namespace kbcc::kb {

using nlohmann::json;

namespace {

std::string type_name(const json &v) {
  switch (v.type()) {
  case json::value_t::object:
    return "object";
  case json::value_t::array:
    return "array";
  case json::value_t::string:
    return "string";
  case json::value_t::boolean:
    return "boolean";
  case json::value_t::null:
    return "null";
  case json::value_t::number_float:
    return "number";
  default:
    return "integer";
  }
}

bool has_type(const json &v, const std::string &t) {
  if (t == "number") return v.is_number();
  if (t == "integer")
    return v.is_number_integer() || (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
  return type_name(v) == t;
}

std::string key_path(const std::string &path, const std::string &key) {
  static const std::regex plain("^[A-Za-z_][A-Za-z0-9_]*$");
  if (std::regex_match(key, plain)) return path + "." + key;
  return path + "[" + json(key).dump() + "]";
}

class Validator {
public:
  explicit Validator(const json &root) : root_(root) {}

  // Returns the first violation as "<path>: <problem>", or "" when valid.
  std::string check(const json &v, const json &schema, const std::string &path, int depth = 0) {
    if (depth > 64) return path + ": schema nesting too deep";
    if (schema.is_boolean()) return schema.get<bool>() ? "" : path + ": not allowed";
    if (!schema.is_object()) return "";
    if (auto r = schema.find("$ref"); r != schema.end()) {
      const json *target = resolve(r->get<std::string>());
      if (!target) return path + ": schema reference " + r->get<std::string>() + " not found";
      return check(v, *target, path, depth + 1);
    }
    for (auto fn : {&Validator::check_type, &Validator::check_enum, &Validator::check_number, &Validator::check_string,
                    &Validator::check_array, &Validator::check_object}) {
      std::string e = (this->*fn)(v, schema, path, depth);
      if (!e.empty()) return e;
    }
    return "";
  }

private:
  const std::regex &compiled(const std::string &pattern) {
    auto it = regexes_.find(pattern);
    if (it == regexes_.end()) it = regexes_.emplace(pattern, std::regex(pattern)).first;
    return it->second;
  }

  const json *resolve(const std::string &ref) {
    if (ref.rfind("#/", 0) != 0) return nullptr;
    try {
      const json &t = root_.at(json::json_pointer(ref.substr(1)));
      return &t;
    } catch (...) {
      return nullptr;
    }
  }

  std::string check_type(const json &v, const json &s, const std::string &path, int) {
    auto t = s.find("type");
    if (t == s.end()) return "";
    std::vector<std::string> types;
    if (t->is_string())
      types.push_back(t->get<std::string>());
    else
      for (const auto &x : *t)
        types.push_back(x.get<std::string>());
    for (const auto &ty : types)
      if (has_type(v, ty)) return "";
    std::string want;
    for (const auto &ty : types)
      want += (want.empty() ? "" : " or ") + ty;
    return path + ": expected " + want + ", found " + type_name(v);
  }

  std::string check_enum(const json &v, const json &s, const std::string &path, int) {
    if (auto c = s.find("const"); c != s.end() && v != *c) return path + ": must be " + c->dump();
    auto e = s.find("enum");
    if (e == s.end()) return "";
    for (const auto &x : *e)
      if (x == v) return "";
    std::string allowed;
    for (const auto &x : *e)
      allowed += (allowed.empty() ? "" : ", ") + x.dump();
    return path + ": " + v.dump() + " is not one of " + allowed;
  }

  std::string check_number(const json &v, const json &s, const std::string &path, int) {
    if (!v.is_number()) return "";
    double d = v.get<double>();
    if (auto m = s.find("minimum"); m != s.end() && d < m->get<double>())
      return path + ": " + v.dump() + " is below the minimum " + m->dump();
    if (auto m = s.find("maximum"); m != s.end() && d > m->get<double>())
      return path + ": " + v.dump() + " is above the maximum " + m->dump();
    if (auto m = s.find("exclusiveMinimum"); m != s.end() && d <= m->get<double>())
      return path + ": " + v.dump() + " must be greater than " + m->dump();
    return "";
  }

  std::string check_string(const json &v, const json &s, const std::string &path, int) {
    if (!v.is_string()) return "";
    const auto &str = v.get_ref<const std::string &>();
    if (auto m = s.find("minLength"); m != s.end() && str.size() < m->get<size_t>())
      return path + ": shorter than " + m->dump() + " characters";
    if (auto p = s.find("pattern"); p != s.end() && !std::regex_search(str, compiled(p->get<std::string>())))
      return path + ": " + v.dump() + " does not match the pattern " + p->dump();
    return "";
  }

  std::string check_array(const json &v, const json &s, const std::string &path, int depth) {
    if (!v.is_array()) return "";
    if (auto m = s.find("minItems"); m != s.end() && v.size() < m->get<size_t>())
      return path + ": needs at least " + m->dump() + " items, has " + std::to_string(v.size());
    if (auto m = s.find("maxItems"); m != s.end() && v.size() > m->get<size_t>())
      return path + ": allows at most " + m->dump() + " items, has " + std::to_string(v.size());
    if (auto u = s.find("uniqueItems"); u != s.end() && u->get<bool>()) {
      std::set<std::string> seen;
      for (size_t i = 0; i < v.size(); ++i)
        if (!seen.insert(v[i].dump()).second)
          return path + "[" + std::to_string(i) + "]: duplicate item " + v[i].dump();
    }
    if (auto items = s.find("items"); items != s.end())
      for (size_t i = 0; i < v.size(); ++i)
        if (auto e = check(v[i], *items, path + "[" + std::to_string(i) + "]", depth + 1); !e.empty()) return e;
    return "";
  }

  std::string check_object(const json &v, const json &s, const std::string &path, int depth) {
    if (!v.is_object()) return "";
    if (auto req = s.find("required"); req != s.end())
      for (const auto &k : *req)
        if (!v.contains(k.get<std::string>()))
          return key_path(path, k.get<std::string>()) + ": required field is missing";
    const json empty = json::object();
    auto props = s.find("properties");
    auto pattern_props = s.find("patternProperties");
    auto additional = s.find("additionalProperties");
    for (const auto &[key, value] : v.items()) {
      std::string p = key_path(path, key);
      bool matched = false;
      if (props != s.end() && props->contains(key)) {
        matched = true;
        if (auto e = check(value, (*props)[key], p, depth + 1); !e.empty()) return e;
      }
      if (pattern_props != s.end())
        for (const auto &[pat, sub] : pattern_props->items())
          if (std::regex_search(key, compiled(pat))) {
            matched = true;
            if (auto e = check(value, sub, p, depth + 1); !e.empty()) return e;
          }
      if (matched || additional == s.end()) continue;
      if (additional->is_boolean() && !additional->get<bool>()) return p + ": unknown field";
      if (auto e = check(value, *additional, p, depth + 1); !e.empty()) return e;
    }
    return "";
  }

  const json &root_;
  std::map<std::string, std::regex> regexes_;
};

} // namespace

Status validate_json(const json &doc, const json &schema, const std::string &origin) {
  try {
    Validator v(schema);
    std::string e = v.check(doc, schema, "$");
    if (e.empty()) return {};
    return make_error(origin + ": " + e, "schema");
  } catch (const std::exception &ex) { // malformed schema keyword values
    return make_error(origin + ": schema check failed: " + ex.what(), "schema");
  }
}

} // namespace kbcc::kb
