#include "launch/mapping.h"

#include <algorithm>

namespace kbcc::launch {
namespace {

using nlohmann::json;

// Every expression of `m` with its role, in a fixed order.
std::vector<std::pair<std::string, const std::string *>> expressions(const LaunchMapping &m) {
  std::vector<std::pair<std::string, const std::string *>> out;
  const char *axes = "xyz";
  for (int i = 0; i < 3; ++i)
    out.push_back({std::string("grid.") + axes[i], &m.grid[i]});
  for (int i = 0; i < 3; ++i)
    out.push_back({std::string("block.") + axes[i], &m.block[i]});
  out.push_back({"shared", &m.shared});
  for (const std::string &p : m.preconditions)
    out.push_back({"precondition", &p});
  return out;
}

const ParamInfo *find_param(const std::vector<ParamInfo> &params, const std::string &name) {
  for (const ParamInfo &p : params)
    if (p.name == name) return &p;
  return nullptr;
}

bool is_launch_field(const std::string &name) {
  const auto &f = launch_fields();
  return std::find(f.begin(), f.end(), name) != f.end();
}

// A scope that adds the launch fields of `l` to the parameters of `inner`.
class LaunchScope : public Scope {
public:
  LaunchScope(const Launch &l, const Scope &inner) : l_(l), inner_(inner) {}
  std::optional<int64_t> value(const std::string &name) const override {
    static const char *axes = "xyz";
    for (int i = 0; i < 3; ++i) {
      if (name == std::string("grid.") + axes[i]) return l_.grid[i];
      if (name == std::string("block.") + axes[i]) return l_.block[i];
    }
    if (name == "shared") return l_.shared;
    return inner_.value(name);
  }
  std::optional<uint64_t> address(const std::string &name) const override { return inner_.address(name); }

private:
  const Launch &l_;
  const Scope &inner_;
};

// Why `l` is not a launch the hardware accepts without opt-ins; empty if it is.
std::string invalid_launch(const int64_t grid[3], const int64_t block[3], int64_t shared) {
  static const int64_t grid_max[3] = {2147483647, 65535, 65535};
  static const int64_t block_max[3] = {1024, 1024, 64};
  const char *axes = "xyz";
  for (int i = 0; i < 3; ++i) {
    if (grid[i] < 1 || grid[i] > grid_max[i]) return std::string("mapped grid.") + axes[i] + " out of range";
    if (block[i] < 1 || block[i] > block_max[i]) return std::string("mapped block.") + axes[i] + " out of range";
  }
  if (block[0] * block[1] * block[2] > 1024) return "mapped block has more than 1024 threads";
  if (shared < 0 || shared > kMaxDefaultSharedBytes) return "mapped dynamic shared memory out of range";
  return {};
}

} // namespace

Expected<LaunchMapping> canonical(const LaunchMapping &m) {
  LaunchMapping out;
  auto canon = [](const std::string &text, std::string &into) -> Status {
    auto e = parse_expr(text);
    if (!e) return e.error();
    into = to_string(**e);
    return Status::ok();
  };
  for (int i = 0; i < 3; ++i) {
    if (auto s = canon(m.grid[i], out.grid[i]); !s) return s.error();
    if (auto s = canon(m.block[i], out.block[i]); !s) return s.error();
  }
  if (auto s = canon(m.shared, out.shared); !s) return s.error();
  for (const std::string &p : m.preconditions) {
    std::string c;
    if (auto s = canon(p, c); !s) return s.error();
    if (std::find(out.preconditions.begin(), out.preconditions.end(), c) == out.preconditions.end())
      out.preconditions.push_back(c);
  }
  return out;
}

Status check_mapping(const LaunchMapping &m, const std::vector<ParamInfo> &params) {
  for (const auto &[role, text] : expressions(m)) {
    auto e = parse_expr(*text);
    if (!e) return e.error();
    std::set<std::string> values, pointers;
    collect_names(**e, values, pointers);
    for (const std::string &n : values) {
      if (is_launch_field(n)) continue;
      const ParamInfo *p = find_param(params, n);
      if (!p)
        return make_error(role + " '" + *text + "': '" + n + "' is neither a launch field nor a parameter",
                          "bad-mapping");
      if (p->kind != ParamInfo::Kind::Signed && p->kind != ParamInfo::Kind::Unsigned)
        return make_error(role + " '" + *text + "': parameter '" + n + "' is not an integer", "bad-mapping");
    }
    for (const std::string &n : pointers) {
      const ParamInfo *p = find_param(params, n);
      if (!p || p->kind != ParamInfo::Kind::Pointer)
        return make_error(role + " '" + *text + "': aligned() and distinct() want pointer parameters, not '" + n + "'",
                          "bad-mapping");
    }
  }
  return Status::ok();
}

bool is_identity(const LaunchMapping &m) {
  LaunchMapping id;
  return m.grid == id.grid && m.block == id.block && m.shared == id.shared && m.preconditions.empty();
}

namespace {

// Whether `condition` reads no name and holds (`1 == 1` once `first` fixed block.y).
bool always_holds(const std::string &condition) {
  struct NoNames : Scope {
    std::optional<int64_t> value(const std::string &) const override { return std::nullopt; }
    std::optional<uint64_t> address(const std::string &) const override { return std::nullopt; }
  };
  auto e = parse_expr(condition);
  if (!e) return false;
  auto v = evaluate(**e, NoNames{});
  return v && *v != 0;
}

} // namespace

Expected<LaunchMapping> compose(const LaunchMapping &first, const LaunchMapping &second) {
  std::map<std::string, ExprPtr> fields;
  for (const auto &[role, text] : expressions(first)) {
    if (role == "precondition") continue;
    auto e = parse_expr(*text);
    if (!e) return e.error();
    fields[role] = *e;
  }
  LaunchMapping out;
  out.preconditions = first.preconditions;
  auto mapped = [&](const std::string &text) -> Expected<std::string> {
    auto e = parse_expr(text);
    if (!e) return e.error();
    return to_string(*substitute(*e, fields));
  };
  for (int i = 0; i < 3; ++i) {
    auto g = mapped(second.grid[i]), b = mapped(second.block[i]);
    if (!g) return g.error();
    if (!b) return b.error();
    out.grid[i] = *g;
    out.block[i] = *b;
  }
  auto s = mapped(second.shared);
  if (!s) return s.error();
  out.shared = *s;
  for (const std::string &p : second.preconditions) {
    auto c = mapped(p);
    if (!c) return c.error();
    if (!always_holds(*c)) out.preconditions.push_back(*c);
  }
  return canonical(out);
}

Expected<Applied> apply_mapping(const LaunchMapping &m, const Launch &original, const Scope &params) {
  LaunchScope scope(original, params);
  Applied out;
  for (const std::string &p : m.preconditions) {
    auto e = parse_expr(p);
    if (!e) return e.error();
    auto v = evaluate(**e, scope);
    if (!v || *v == 0) {
      out.failed = v ? p : p + " (" + v.error().message + ")";
      return out;
    }
  }
  int64_t grid[3], block[3], shared = 0;
  auto eval = [&](const std::string &text, int64_t &into) -> Status {
    auto e = parse_expr(text);
    if (!e) return e.error();
    auto v = evaluate(**e, scope);
    if (!v) {
      out.failed = text + " (" + v.error().message + ")";
      into = -1;
      return Status::ok();
    }
    into = *v;
    return Status::ok();
  };
  for (int i = 0; i < 3; ++i) {
    if (auto s = eval(m.grid[i], grid[i]); !s) return s.error();
    if (auto s = eval(m.block[i], block[i]); !s) return s.error();
  }
  if (auto s = eval(m.shared, shared); !s) return s.error();
  if (!out.failed.empty()) return out;
  out.failed = invalid_launch(grid, block, shared);
  if (!out.failed.empty()) return out;
  for (int i = 0; i < 3; ++i) {
    out.launch.grid[i] = static_cast<uint32_t>(grid[i]);
    out.launch.block[i] = static_cast<uint32_t>(block[i]);
  }
  out.launch.shared = static_cast<uint32_t>(shared);
  out.ok = true;
  return out;
}

json to_json(const LaunchMapping &m) {
  return {{"grid", m.grid}, {"block", m.block}, {"shared", m.shared}, {"preconditions", m.preconditions}};
}

Expected<LaunchMapping> mapping_from_json(const json &j, const std::string &origin) {
  auto bad = [&](const std::string &field, const std::string &what) {
    return make_error(origin + ": $.launch." + field + ": " + what, "bad-mapping");
  };
  if (!j.is_object()) return bad("", "expected an object");
  LaunchMapping m;
  for (const char *axis3 : {"grid", "block"}) {
    if (!j.contains(axis3) || !j[axis3].is_array() || j[axis3].size() != 3)
      return bad(axis3, "expected an array of 3 expressions");
    for (size_t i = 0; i < 3; ++i) {
      if (!j[axis3][i].is_string()) return bad(std::string(axis3) + "[" + std::to_string(i) + "]", "expected a string");
      (std::string(axis3) == "grid" ? m.grid : m.block)[i] = j[axis3][i].get<std::string>();
    }
  }
  if (!j.contains("shared") || !j["shared"].is_string()) return bad("shared", "expected a string");
  m.shared = j["shared"].get<std::string>();
  if (j.contains("preconditions")) {
    if (!j["preconditions"].is_array()) return bad("preconditions", "expected an array of strings");
    for (const json &p : j["preconditions"]) {
      if (!p.is_string()) return bad("preconditions", "expected an array of strings");
      m.preconditions.push_back(p.get<std::string>());
    }
  }
  auto c = canonical(m);
  if (!c) return make_error(origin + ": $.launch: " + c.error().message, "bad-mapping");
  return c;
}

} // namespace kbcc::launch
