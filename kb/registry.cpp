// Kernel registry: JSON form, folding repeated sightings, and the registry table.
#include "kb/registry.h"

#include "cache/json_fields.h"
#include "tooling/param_json.h"

#include <algorithm>
#include <set>

namespace kbcc::kb {

using cache::FieldReader;
using nlohmann::json;

namespace {

Expected<tooling::Param> param_from_json(const json &j, const std::string &origin, const std::string &path) {
  tooling::Param p;
  FieldReader f(j, origin, path);
  f.str("name", p.name).str("type", p.type, true).boolean("is_pointer", p.is_pointer);
  f.boolean("pointee_const", p.pointee_const).str("pointee_type", p.pointee_type).boolean("is_record", p.is_record);
  f.boolean("is_integer", p.is_integer).boolean("is_signed", p.is_signed);
  f.u64("size", p.size).u64("align", p.align).u64("offset", p.offset);
  if (!f.ok()) return f.error();
  return p;
}

} // namespace

json to_json(const RegistryEntry &e) {
  json params = json::array();
  for (const auto &p : e.params)
    params.push_back(tooling::param_to_json(p));
  return {{"hash", e.hash},
          {"qualified_name", e.qualified_name},
          {"mangled_names", e.mangled_names},
          {"params", params},
          {"source", e.source},
          {"dependencies", e.dependencies},
          {"file", e.file},
          {"line", e.line},
          {"tu_path", e.tu_path},
          {"compile_command", e.compile_command},
          {"working_dir", e.working_dir},
          {"closure", e.closure},
          {"toolchain", e.toolchain},
          {"archs", e.archs},
          {"not_optimizable", e.not_optimizable},
          {"first_seen", e.first_seen},
          {"last_seen", e.last_seen},
          {"build_count", e.build_count}};
}

Expected<RegistryEntry> registry_entry_from_json(const json &j, const std::string &origin) {
  RegistryEntry e;
  FieldReader f(j, origin);
  uint32_t line = 0;
  f.str("hash", e.hash, true).str("qualified_name", e.qualified_name).strings("mangled_names", e.mangled_names);
  f.str("source", e.source).str("dependencies", e.dependencies).str("file", e.file).u32("line", line);
  f.str("tu_path", e.tu_path).strings("compile_command", e.compile_command).str("working_dir", e.working_dir);
  f.str("closure", e.closure);
  f.str("toolchain", e.toolchain).strings("archs", e.archs).str("not_optimizable", e.not_optimizable);
  f.i64("first_seen", e.first_seen).i64("last_seen", e.last_seen).u64("build_count", e.build_count);
  if (!f.ok()) return f.error();
  e.line = line;
  if (auto it = j.find("params"); it != j.end() && it->is_array())
    for (size_t i = 0; i < it->size(); ++i) {
      auto p = param_from_json((*it)[i], origin, "$.params[" + std::to_string(i) + "]");
      if (!p) return p.error();
      e.params.push_back(*p);
    }
  return e;
}

RegistryEntry entry_from_kernel(const tooling::Kernel &k, const std::vector<std::string> &archs,
                                const std::string &tu_path, const std::vector<std::string> &compile_command,
                                const std::string &working_dir, const std::string &toolchain, int64_t now) {
  RegistryEntry e;
  e.hash = k.hash;
  e.qualified_name = k.qualified_name;
  e.mangled_names = k.mangled_names;
  e.params = k.params;
  e.source = k.source;
  e.dependencies = k.dependencies;
  e.file = k.file;
  e.line = k.line;
  e.tu_path = tu_path;
  e.compile_command = compile_command;
  e.working_dir = working_dir;
  e.toolchain = toolchain;
  std::set<std::string> a(archs.begin(), archs.end());
  e.archs.assign(a.begin(), a.end());
  e.not_optimizable = k.not_optimizable;
  e.first_seen = e.last_seen = now;
  e.build_count = 1;
  return e;
}

RegistryEntry fold_entry(const RegistryEntry &existing, const RegistryEntry &seen) {
  RegistryEntry e = seen;
  std::set<std::string> a(existing.archs.begin(), existing.archs.end());
  a.insert(seen.archs.begin(), seen.archs.end());
  e.archs.assign(a.begin(), a.end());
  std::set<std::string> m(existing.mangled_names.begin(), existing.mangled_names.end());
  m.insert(seen.mangled_names.begin(), seen.mangled_names.end());
  e.mangled_names.assign(m.begin(), m.end());
  e.first_seen = std::min(existing.first_seen, seen.first_seen);
  e.last_seen = std::max(existing.last_seen, seen.last_seen);
  e.build_count = existing.build_count + seen.build_count;
  if (e.closure.empty()) e.closure = existing.closure;
  return e;
}

Status Registry::upsert(const std::vector<RegistryEntry> &seen) {
  if (seen.empty()) return {};
  return env_.write([&](cache::Txn &txn) -> Status {
    for (const auto &s : seen) {
      auto old = txn.get(cache::kRegistryTable, s.hash);
      if (!old) return old.error();
      RegistryEntry e = s;
      if (*old) {
        auto prev = registry_entry_from_json(json::parse(**old, nullptr, false), env_.path() + ": registry " + s.hash);
        if (prev) e = fold_entry(*prev, s); // an unreadable row is replaced
      }
      if (auto st = txn.put(cache::kRegistryTable, e.hash, to_json(e).dump()); !st) return st;
      if (auto st = txn.touch(cache::kRegistryTable, e.hash); !st) return st;
    }
    return {};
  });
}

Expected<std::optional<RegistryEntry>> Registry::get(const std::string &hash) {
  std::optional<std::string> text;
  Status st = env_.read([&](cache::Txn &txn) -> Status {
    auto v = txn.get(cache::kRegistryTable, hash);
    if (!v) return v.error();
    text = *v;
    return {};
  });
  if (!st) return st.error();
  if (!text) return std::optional<RegistryEntry>{};
  auto e = registry_entry_from_json(json::parse(*text, nullptr, false), env_.path() + "/data.mdb: registry " + hash);
  if (!e) return e.error();
  return std::optional<RegistryEntry>(std::move(*e));
}

Expected<std::vector<RegistryEntry>> Registry::list() {
  std::vector<RegistryEntry> out;
  Error bad;
  Status st = env_.read([&](cache::Txn &txn) -> Status {
    return txn.for_each(cache::kRegistryTable, "", [&](std::string_view key, std::string_view value) {
      auto e = registry_entry_from_json(json::parse(value, nullptr, false),
                                        env_.path() + "/data.mdb: registry " + std::string(key));
      if (!e) {
        bad = e.error();
        return false;
      }
      out.push_back(std::move(*e));
      return true;
    });
  });
  if (!st) return st.error();
  if (!bad.message.empty()) return bad;
  return out;
}

Expected<uint64_t> Registry::count() { return env_.count(cache::kRegistryTable); }

} // namespace kbcc::kb
