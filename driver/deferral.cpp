#include "driver/deferral.h"

#include "cache/env.h"
#include "cache/stats.h"
#include "cache/variant.h"
#include "kb/pending.h"
#include "kb/snapshot.h"
#include "support/fs.h"
#include "support/hash.h"
#include "support/log.h"

#include <cctype>
#include <filesystem>

namespace kbcc::driver {
namespace {

std::string unit_path(const CompileUnit &unit) {
  std::filesystem::path p(unit.source_abs.empty() ? unit.source : unit.source_abs);
  if (p.is_relative() && !unit.working_dir.empty()) p = std::filesystem::path(unit.working_dir) / p;
  return p.string();
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether a variant of `snapshot` for one of `archs` may apply to a unit
// whose text has `ids`.
bool snapshot_may_apply(const kb::Snapshot &snapshot, const std::vector<std::string> &archs,
                        const std::set<std::string> &ids) {
  for (const cache::VariantRecord &r : snapshot.variants) {
    if (std::find(archs.begin(), archs.end(), r.arch) == archs.end()) continue;
    std::string name = cache::kernel_base_name(r.qualified_name);
    if (name.empty() || ids.count(name)) return true;
  }
  return false;
}

} // namespace

std::set<std::string> identifiers_of(const std::string &text) {
  std::set<std::string> out;
  for (size_t i = 0; i < text.size();) {
    if (!ident_start(text[i])) {
      // Skip the rest of a number or identifier-like token (1e5f, 0x1F).
      bool digit = std::isdigit(static_cast<unsigned char>(text[i]));
      ++i;
      while (digit && i < text.size() && ident_char(text[i]))
        ++i;
      continue;
    }
    size_t b = i;
    while (i < text.size() && ident_char(text[i]))
      ++i;
    out.emplace(text, b, i - b);
  }
  return out;
}

Deferral decide_deferral(const Config &config, const CompileUnit &unit) {
  Deferral d;
  if (!config.get_bool("deferred_registration")) return d.why = "deferred registration is off", d;
  auto text = read_file(unit_path(unit));
  if (!text) return d.why = "cannot read the unit to decide: " + text.error().message, d;
  std::set<std::string> ids = identifiers_of(*text);
  std::string dir = std::filesystem::path(unit_path(unit)).parent_path().string();
  std::string pinned = kb::find_pinned_snapshot(config.get("snapshot"), dir);
  if (!pinned.empty()) {
    if (std::filesystem::path(pinned).is_relative() && !unit.working_dir.empty())
      pinned = (std::filesystem::path(unit.working_dir) / pinned).string();
    auto snapshot = kb::load_snapshot(pinned);
    if (!snapshot) return d.why = "pinned snapshot: " + snapshot.error().message, d; // the parse path reports it
    if (snapshot_may_apply(*snapshot, unit.archs, ids))
      return d.name_match = true, d.why = "the pinned snapshot has a variant it may name", d;
    d.defer = true; // a pinned build records nothing
    d.why = "no kernel of the pinned snapshot is named in the unit";
    return d;
  }
  if (!config.get("remote").empty()) return d.why = "a remote store may hold variants for it", d;
  auto env = cache::Env::open(config.dir(), cache::env_options(config));
  if (!env) return d.why = "store: " + env.error().message, d;
  auto may = cache::VariantStore(**env).may_apply(unit.archs, ids);
  if (!may) return d.why = "store: " + may.error().message, d;
  if (*may) return d.name_match = true, d.why = "a kernel it names may have a variant", d;
  d.defer = true;
  d.record = config.get_bool("record");
  d.why = "no kernel it names has a variant: parsed later, when the registry is read";
  return d;
}

nlohmann::json unit_to_json(const CompileUnit &u) {
  return {{"source", u.source},
          {"source_abs", u.source_abs},
          {"archs", u.archs},
          {"device_flags", u.device_flags},
          {"include_flags", u.include_flags},
          {"std", u.std},
          {"nvcc_argv", u.nvcc_argv},
          {"working_dir", u.working_dir},
          {"host_compiler", u.host_compiler}};
}

Expected<CompileUnit> unit_from_json(const nlohmann::json &j) {
  CompileUnit u;
  try {
    u.source = j.at("source").get<std::string>();
    u.source_abs = j.at("source_abs").get<std::string>();
    u.archs = j.at("archs").get<std::vector<std::string>>();
    u.device_flags = j.at("device_flags").get<std::vector<std::string>>();
    u.include_flags = j.at("include_flags").get<std::vector<std::string>>();
    u.std = j.at("std").get<std::string>();
    u.nvcc_argv = j.at("nvcc_argv").get<std::vector<std::string>>();
    u.working_dir = j.at("working_dir").get<std::string>();
    u.host_compiler = j.at("host_compiler").get<std::string>();
  } catch (const std::exception &e) {
    return make_error(std::string("not a compile unit: ") + e.what(), cache::kErrBadRecord);
  }
  if (u.nvcc_argv.empty() || u.archs.empty())
    return make_error("not a compile unit: no command or arch", cache::kErrBadRecord);
  return u;
}

void record_pending(const Config &config, const CompileUnit &unit) {
  auto env = cache::Env::open(config.dir(), cache::env_options(config));
  Status st = env ? Status::ok() : Status(env.error());
  if (env) {
    std::string key =
        hash_hex(unit_path(unit) + '\0' + unit.working_dir + '\0' + nlohmann::json(unit.nvcc_argv).dump());
    st = kb::PendingUnits(**env).put(key, unit_to_json(unit), cache::now_seconds());
  }
  if (!st) log_line("deferred registration not recorded for " + unit.source + ": " + st.error().message);
}

} // namespace kbcc::driver
