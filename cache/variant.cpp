// Variant records: JSON form, evidence check, and the variants table.
#include "cache/variant.h"

#include "cache/json_fields.h"
#include "support/hash.h"

namespace kbcc::cache {

using nlohmann::json;

namespace {
constexpr const char *kVariantFormat = "kbcc-variant";
// Version 2 adds `launch` and `numerics`; a record without them is written as
// version 1, so it stays byte-identical (and its remote address stable).
constexpr int kVariantVersion = 2;

bool needs_v2(const VariantRecord &r) { return r.launch.has_value() || !r.numerics.empty(); }
} // namespace

double TimingEvidence::speedup() const {
  return variant_median_us > 0 && baseline_median_us > 0 ? baseline_median_us / variant_median_us : 0;
}

std::string VariantRecord::id() const {
  Hasher h;
  h.field("kbcc-variant-id-1");
  h.field(kernel_hash);
  h.field(arch);
  h.field(source);
  h.field(toolchain);
  if (launch) { // canonical, as a parsed record holds it: the id must not depend on spelling
    auto c = launch::canonical(*launch);
    h.field(launch::to_json(c ? *c : *launch).dump());
  }
  if (!numerics.empty()) h.field("numerics:" + numerics);
  return h.hex();
}

std::string variant_key(const std::string &kernel_hash, const std::string &arch) { return kernel_hash + "/" + arch; }

json to_json(const VariantRecord &r) {
  const auto &p = r.provenance;
  const auto &v = r.validation;
  const auto &t = r.timing;
  json j = {{"format", kVariantFormat},
            {"version", needs_v2(r) ? kVariantVersion : 1},
            {"id", r.id()},
            {"kernel_hash", r.kernel_hash},
            {"arch", r.arch},
            {"qualified_name", r.qualified_name},
            {"source", r.source},
            {"toolchain", r.toolchain},
            {"provenance",
             {{"trajectory", p.trajectory},
              {"optimizations", p.optimizations},
              {"kb_snapshot", p.kb_snapshot},
              {"llm_model", p.llm_model},
              {"contributor", p.contributor},
              {"created", p.created}}},
            {"validation",
             {{"captures_checked", v.captures_checked},
              {"max_error", v.max_error},
              {"tolerance", v.tolerance},
              {"sanitizer", v.sanitizer},
              {"notes", v.notes}}},
            {"timing",
             {{"baseline_median_us", t.baseline_median_us},
              {"baseline_spread_us", t.baseline_spread_us},
              {"variant_median_us", t.variant_median_us},
              {"variant_spread_us", t.variant_spread_us},
              {"runs", t.runs},
              {"speedup", t.speedup()},
              {"gpu_name", t.gpu_name},
              {"driver", t.driver}}}};
  if (r.launch) { // canonical, as a parsed record holds it: the text, and so a remote address, must round-trip
    auto c = launch::canonical(*r.launch);
    j["launch"] = launch::to_json(c ? *c : *r.launch);
  }
  if (!r.numerics.empty()) j["numerics"] = r.numerics;
  if (!r.signature.empty()) j["signature"] = r.signature;
  if (!r.signer.empty()) j["signer"] = r.signer;
  return j;
}

Expected<VariantRecord> variant_from_json(const json &j, const std::string &origin) {
  VariantRecord r;
  FieldReader f(j, origin);
  std::string format;
  int64_t version = 0;
  f.str("format", format, true).i64("version", version, true);
  if (f.ok() && format != kVariantFormat) f.fail("$.format", "expected \"" + std::string(kVariantFormat) + "\"");
  if (f.ok() && (version < 1 || version > kVariantVersion))
    f.fail("$.version", "variant format version " + std::to_string(version) + " is not supported (expected 1 to " +
                            std::to_string(kVariantVersion) + ")");
  f.str("kernel_hash", r.kernel_hash, true).str("arch", r.arch, true).str("source", r.source, true);
  f.str("qualified_name", r.qualified_name).str("toolchain", r.toolchain).str("signature", r.signature);
  f.str("signer", r.signer).str("numerics", r.numerics);
  if (f.ok() && version == 1 && (j.contains("launch") || j.contains("numerics")))
    f.fail("$.version", "version 1 records have no launch mapping or numerics class (expected version 2)");
  if (f.ok() && j.contains("launch")) {
    auto m = launch::mapping_from_json(j["launch"], origin);
    if (!m) return m.error();
    r.launch = *m;
  }
  FieldReader p(f.object("provenance"), origin, "$.provenance");
  p.str("trajectory", r.provenance.trajectory).strings("optimizations", r.provenance.optimizations);
  p.str("kb_snapshot", r.provenance.kb_snapshot).str("llm_model", r.provenance.llm_model);
  p.str("contributor", r.provenance.contributor).i64("created", r.provenance.created);
  FieldReader v(f.object("validation", true), origin, "$.validation");
  v.u32("captures_checked", r.validation.captures_checked, true).num("max_error", r.validation.max_error, true);
  v.num("tolerance", r.validation.tolerance, true).str("sanitizer", r.validation.sanitizer);
  v.str("notes", r.validation.notes);
  FieldReader t(f.object("timing"), origin, "$.timing");
  t.num("baseline_median_us", r.timing.baseline_median_us).num("baseline_spread_us", r.timing.baseline_spread_us);
  t.num("variant_median_us", r.timing.variant_median_us).num("variant_spread_us", r.timing.variant_spread_us);
  t.u32("runs", r.timing.runs).str("gpu_name", r.timing.gpu_name).str("driver", r.timing.driver);
  for (auto *reader : {&f, &p, &v, &t})
    if (!reader->ok()) return reader->error();
  if (j.contains("id") && j["id"].is_string() && j["id"].get<std::string>() != r.id())
    return make_error(origin + ": $.id: does not match the record's content (expected " + r.id() + ")", kErrBadRecord);
  return r;
}

Expected<VariantRecord> parse_variant(const std::string &text, const std::string &origin) {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return make_error(origin + ": not valid JSON", kErrBadRecord);
  return variant_from_json(j, origin);
}

Status check_variant(const VariantRecord &r) {
  std::string who = "variant " + r.kernel_hash + "/" + r.arch;
  if (r.kernel_hash.empty() || r.arch.empty()) return make_error(who + ": kernel hash and arch are required", "no-key");
  if (r.source.empty()) return make_error(who + ": no source", "no-source");
  if (r.validation.captures_checked == 0)
    return make_error(who + ": no validation evidence (captures_checked is 0)", "unvalidated");
  if (!(r.validation.tolerance >= 0) || !(r.validation.max_error >= 0))
    return make_error(who + ": invalid validation evidence (negative or NaN error/tolerance)", "unvalidated");
  if (r.validation.max_error > r.validation.tolerance)
    return make_error(who + ": max error " + std::to_string(r.validation.max_error) + " exceeds tolerance " +
                          std::to_string(r.validation.tolerance),
                      "unvalidated");
  if (r.validation.sanitizer == "errors") return make_error(who + ": sanitizer reported errors", "unvalidated");
  if (!r.numerics.empty() && r.numerics != kNumericsExact && r.numerics != kNumericsReassociates &&
      r.numerics != kNumericsApproximate)
    return make_error(who + ": unknown numerics class '" + r.numerics + "'", "bad-record");
  if (r.launch)
    if (auto c = launch::canonical(*r.launch); !c) return make_error(who + ": " + c.error().message, "bad-mapping");
  return {};
}

namespace {

constexpr const char *kNameIndexKey = "variant-names"; // meta: the name index covers every variant

// "<arch>/<kernel base name>", or "<arch>/*" for a record without a name.
std::string name_key(const VariantRecord &r) {
  std::string name = kernel_base_name(r.qualified_name);
  return r.arch + "/" + (name.empty() ? "*" : name);
}

} // namespace

Expected<bool> VariantStore::put(const VariantRecord &record, PutMode mode) {
  if (auto st = check_variant(record); !st) return st.error();
  std::string key = variant_key(record.kernel_hash, record.arch);
  std::string text = to_json(record).dump();
  bool stored = false;
  Status st = env_.write([&](Txn &txn) -> Status {
    stored = false;
    if (mode == PutMode::kKeepFaster) {
      auto old = txn.get(kVariantTable, key);
      if (!old) return old.error();
      if (*old) {
        auto prev = parse_variant(**old, env_.path() + ": variant " + key);
        if (prev && prev->timing.speedup() > record.timing.speedup()) return {};
      }
    }
    if (auto s = txn.put(kVariantTable, key, text); !s) return s;
    if (auto s = txn.put(kVariantNameTable, name_key(record), ""); !s) return s;
    stored = true;
    return txn.touch(kVariantTable, key);
  });
  if (!st) return st.error();
  return stored;
}

Expected<std::optional<VariantRecord>> VariantStore::get(const std::string &kernel_hash, const std::string &arch,
                                                         bool touch) {
  std::string key = variant_key(kernel_hash, arch);
  std::optional<std::string> text;
  Status st = env_.read([&](Txn &txn) -> Status {
    auto v = txn.get(kVariantTable, key);
    if (!v) return v.error();
    text = *v;
    return {};
  });
  if (!st) return st.error();
  if (!text) return std::optional<VariantRecord>{};
  auto rec = parse_variant(*text, env_.path() + "/data.mdb: variant " + key);
  if (!rec) return rec.error();
  if (touch) (void)env_.write([&](Txn &txn) { return txn.touch(kVariantTable, key); });
  return std::optional<VariantRecord>(std::move(*rec));
}

Expected<std::vector<VariantRecord>> VariantStore::list(const std::string &arch) {
  std::vector<VariantRecord> out;
  Error bad;
  Status st = env_.read([&](Txn &txn) -> Status {
    return txn.for_each(kVariantTable, "", [&](std::string_view key, std::string_view value) {
      auto rec = parse_variant(std::string(value), env_.path() + "/data.mdb: variant " + std::string(key));
      if (!rec) {
        bad = rec.error();
        return false;
      }
      if (arch.empty() || rec->arch == arch) out.push_back(std::move(*rec));
      return true;
    });
  });
  if (!st) return st.error();
  if (!bad.message.empty()) return bad;
  return out;
}

Expected<bool> VariantStore::remove(const std::string &kernel_hash, const std::string &arch) {
  std::string key = variant_key(kernel_hash, arch);
  bool existed = false;
  Status st = env_.write([&](Txn &txn) -> Status {
    auto r = txn.remove(kVariantTable, key);
    if (!r) return r.error();
    existed = *r;
    auto a = txn.remove(kAccessTable, std::string(kVariantTable) + '\x1f' + key);
    return a ? Status{} : Status(a.error());
  });
  if (!st) return st.error();
  return existed;
}

Expected<uint64_t> VariantStore::clear() {
  uint64_t n = 0;
  Status st = env_.write([&](Txn &txn) -> Status {
    n = 0;
    std::vector<std::string> keys;
    auto s = txn.for_each(kVariantTable, "", [&](std::string_view k, std::string_view) {
      keys.emplace_back(k);
      return true;
    });
    if (!s) return s;
    for (const auto &k : keys) {
      if (auto r = txn.remove(kVariantTable, k); !r) return r.error();
      if (auto r = txn.remove(kAccessTable, std::string(kVariantTable) + '\x1f' + k); !r) return r.error();
      ++n;
    }
    std::vector<std::string> names;
    auto s2 = txn.for_each(kVariantNameTable, "", [&](std::string_view k, std::string_view) {
      names.emplace_back(k);
      return true;
    });
    if (!s2) return s2;
    for (const auto &k : names)
      if (auto r = txn.remove(kVariantNameTable, k); !r) return r.error();
    return {};
  });
  if (!st) return st.error();
  return n;
}

std::string kernel_base_name(const std::string &qualified) {
  std::string s = qualified.substr(0, qualified.find('<'));
  size_t colon = s.rfind("::");
  return colon == std::string::npos ? s : s.substr(colon + 2);
}

Expected<bool> VariantStore::may_apply(const std::vector<std::string> &archs, const std::set<std::string> &identifiers) {
  // A store written before the name index: index its variants once.
  bool indexed = false;
  Status st = env_.read([&](Txn &txn) -> Status {
    auto v = txn.get(kMetaTable, kNameIndexKey);
    if (!v) return v.error();
    indexed = v->has_value();
    return {};
  });
  if (!st) return st.error();
  if (!indexed) {
    st = env_.write([&](Txn &txn) -> Status {
      Status inner = Status::ok();
      auto s = txn.for_each(kVariantTable, "", [&](std::string_view key, std::string_view value) {
        auto rec = parse_variant(std::string(value), env_.path() + "/data.mdb: variant " + std::string(key));
        VariantRecord unnamed; // a record that does not parse counts as unnamed: always a candidate
        unnamed.arch = std::string(key.substr(key.find('/') + 1));
        inner = txn.put(kVariantNameTable, name_key(rec ? *rec : unnamed), "");
        return static_cast<bool>(inner);
      });
      if (!s) return s;
      if (!inner) return inner;
      return txn.put(kMetaTable, kNameIndexKey, "1");
    });
    if (!st) return st.error();
  }
  bool found = false;
  st = env_.read([&](Txn &txn) -> Status {
    for (const std::string &arch : archs) {
      auto s = txn.for_each(kVariantNameTable, arch + "/", [&](std::string_view key, std::string_view) {
        std::string name(key.substr(arch.size() + 1));
        found = name == "*" || identifiers.count(name);
        return !found;
      });
      if (!s) return s;
      if (found) break;
    }
    return {};
  });
  if (!st) return st.error();
  return found;
}

} // namespace kbcc::cache
