// KB policy <-> JSON (docs/kb-format.md), canonical text and content id,
// the compiled-in seed KB and schema.
#include "kb/policy.h"
#include "kb/resources.h"
#include "kb/schema.h"
#include "support/hash.h"

#include <algorithm>
#include <set>

namespace kbcc::kb {

using nlohmann::json;

namespace {

std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

json speedup_to_json(const SpeedupStats &s) {
  return {{"count", s.count}, {"sum_log", s.sum_log}, {"sum_log_sq", s.sum_log_sq},
          {"min", s.min},     {"max", s.max},         {"buckets", s.buckets}};
}

SpeedupStats speedup_from_json(const json &j) {
  SpeedupStats s;
  s.count = j.value("count", uint64_t{0});
  s.sum_log = j.value("sum_log", 0.0);
  s.sum_log_sq = j.value("sum_log_sq", 0.0);
  s.min = j.value("min", 0.0);
  s.max = j.value("max", 0.0);
  if (auto b = j.find("buckets"); b != j.end())
    for (size_t i = 0; i < s.buckets.size() && i < b->size(); ++i)
      s.buckets[i] = (*b)[i].get<uint64_t>();
  return s;
}

json evidence_to_json(const Evidence &e) {
  return {{"attempts", e.attempts},
          {"successes", e.successes},
          {"compile_failures", e.compile_failures},
          {"validation_failures", e.validation_failures},
          {"speedup", speedup_to_json(e.speedup)}};
}

Evidence evidence_from_json(const json &j) {
  Evidence e;
  e.attempts = j.value("attempts", uint64_t{0});
  e.successes = j.value("successes", uint64_t{0});
  e.compile_failures = j.value("compile_failures", uint64_t{0});
  e.validation_failures = j.value("validation_failures", uint64_t{0});
  if (auto s = j.find("speedup"); s != j.end()) e.speedup = speedup_from_json(*s);
  return e;
}

json summary_to_json(const StatsSummary &s) {
  return {{"attempts", s.attempts},
          {"successes", s.successes},
          {"compile_failures", s.compile_failures},
          {"validation_failures", s.validation_failures},
          {"contributors", s.contributors},
          {"success_rate", s.success_rate},
          {"geomean_speedup", s.geomean_speedup},
          {"median_speedup", s.median_speedup},
          {"max_speedup", s.max_speedup},
          {"confidence", s.confidence}};
}

json state_to_json(const State &s) {
  json sig = json::array();
  for (const auto &r : s.signature) {
    json m = {{"metric", r.metric}};
    if (r.min) m["min"] = *r.min;
    if (r.max) m["max"] = *r.max;
    sig.push_back(m);
  }
  return {{"id", s.id},
          {"name", s.name},
          {"primary_bottleneck", s.primary_bottleneck},
          {"secondary", s.secondary},
          {"signature", sig},
          {"description", s.description},
          {"optimizations", s.optimizations},
          {"insights", s.insights},
          {"revision", s.revision}};
}

State state_from_json(const json &j) {
  State s;
  s.id = j.at("id").get<std::string>();
  s.name = j.value("name", "");
  s.primary_bottleneck = j.at("primary_bottleneck").get<std::string>();
  s.secondary = j.value("secondary", std::vector<std::string>{});
  for (const auto &m : j.at("signature")) {
    MetricRange r;
    r.metric = m.at("metric").get<std::string>();
    if (m.contains("min")) r.min = m["min"].get<double>();
    if (m.contains("max")) r.max = m["max"].get<double>();
    s.signature.push_back(r);
  }
  s.description = j.value("description", "");
  s.optimizations = j.value("optimizations", std::vector<std::string>{});
  s.insights = sorted_unique(j.value("insights", std::vector<std::string>{}));
  s.revision = j.value("revision", 1u);
  return s;
}

json optimization_to_json(const Optimization &o, const Policy *with_summaries) {
  json stats = json::object();
  for (const auto &[arch, per_state] : o.stats) {
    json states = json::object();
    for (const auto &[state, per_contributor] : per_state) {
      json contributors = json::object();
      for (const auto &[c, e] : per_contributor)
        contributors[c] = evidence_to_json(e);
      states[state] = {{"contributors", contributors}};
      if (with_summaries) states[state]["summary"] = summary_to_json(with_summaries->summary(o.id, arch, state));
    }
    stats[arch] = {{"states", states}};
    if (with_summaries) stats[arch]["summary"] = summary_to_json(with_summaries->summary(o.id, arch));
  }
  for (const auto &[arch, per_value] : o.parameters) {
    json values = json::object();
    for (const auto &[value, per_contributor] : per_value) {
      json contributors = json::object();
      for (const auto &[c, e] : per_contributor)
        contributors[c] = evidence_to_json(e);
      values[value] = {{"contributors", contributors}};
      if (with_summaries)
        values[value]["summary"] = summary_to_json(with_summaries->parameter_summary(o.id, value, arch));
    }
    stats[arch]["parameters"] = values;
  }
  return {{"id", o.id},
          {"technique", o.technique},
          {"description", o.description},
          {"category", o.category},
          {"applies_when",
           {{"states", o.applies_when.states},
            {"conditions", o.applies_when.conditions},
            {"min_arch", o.applies_when.min_arch}}},
          {"mechanical", o.mechanical ? json(*o.mechanical) : json(nullptr)},
          {"prior", {{"success_rate", o.prior.success_rate}, {"typical_speedup", o.prior.typical_speedup}}},
          {"insights", o.insights},
          {"revision", o.revision},
          {"stats", stats}};
}

Optimization optimization_from_json(const json &j) {
  Optimization o;
  o.id = j.at("id").get<std::string>();
  o.technique = j.at("technique").get<std::string>();
  o.description = j.at("description").get<std::string>();
  o.category = j.at("category").get<std::string>();
  const json &aw = j.at("applies_when");
  o.applies_when.states = aw.at("states").get<std::vector<std::string>>();
  o.applies_when.conditions = aw.value("conditions", std::vector<std::string>{});
  o.applies_when.min_arch = aw.value("min_arch", 0);
  if (auto m = j.find("mechanical"); m != j.end() && m->is_string()) o.mechanical = m->get<std::string>();
  if (auto p = j.find("prior"); p != j.end()) {
    o.prior.success_rate = p->value("success_rate", 0.5);
    o.prior.typical_speedup = p->value("typical_speedup", 1.0);
  }
  o.insights = sorted_unique(j.value("insights", std::vector<std::string>{}));
  o.revision = j.value("revision", 1u);
  if (auto st = j.find("stats"); st != j.end())
    for (const auto &[arch, a] : st->items()) {
      auto &per_state = o.stats[arch];
      if (auto ss = a.find("states"); ss != a.end())
        for (const auto &[state, s] : ss->items()) {
          auto &per_contributor = per_state[state];
          for (const auto &[c, e] : s.at("contributors").items())
            per_contributor[c] = evidence_from_json(e);
        }
      if (auto ps = a.find("parameters"); ps != a.end())
        for (const auto &[value, s] : ps->items())
          for (const auto &[c, e] : s.at("contributors").items())
            o.parameters[arch][value][c] = evidence_from_json(e);
    }
  return o;
}

// Checks what the schema cannot: unique ids and references between them.
Status check_references(const json &doc, const std::string &origin) {
  std::set<std::string> states, opts;
  auto fail = [&](const std::string &path, const std::string &what) {
    return Status(make_error(origin + ": " + path + ": " + what, "schema"));
  };
  for (size_t i = 0; i < doc["states"].size(); ++i)
    if (!states.insert(doc["states"][i]["id"].get<std::string>()).second)
      return fail("$.states[" + std::to_string(i) + "].id", "duplicate state id");
  for (size_t i = 0; i < doc["optimizations"].size(); ++i)
    if (!opts.insert(doc["optimizations"][i]["id"].get<std::string>()).second)
      return fail("$.optimizations[" + std::to_string(i) + "].id", "duplicate optimization id");
  for (size_t i = 0; i < doc["states"].size(); ++i) {
    const auto &list = doc["states"][i].value("optimizations", json::array());
    for (size_t k = 0; k < list.size(); ++k)
      if (!opts.count(list[k].get<std::string>()))
        return fail("$.states[" + std::to_string(i) + "].optimizations[" + std::to_string(k) + "]",
                    "unknown optimization \"" + list[k].get<std::string>() + "\"");
  }
  for (size_t i = 0; i < doc["optimizations"].size(); ++i) {
    const auto &list = doc["optimizations"][i]["applies_when"]["states"];
    for (size_t k = 0; k < list.size(); ++k)
      if (list[k] != "*" && !states.count(list[k].get<std::string>()))
        return fail("$.optimizations[" + std::to_string(i) + "].applies_when.states[" + std::to_string(k) + "]",
                    "unknown state \"" + list[k].get<std::string>() + "\"");
  }
  return {};
}

json policy_json(const Policy &p, bool summaries) {
  json states = json::array(), opts = json::array();
  for (const auto &s : p.states)
    states.push_back(state_to_json(s));
  for (const auto &o : p.optimizations)
    opts.push_back(optimization_to_json(o, summaries ? &p : nullptr));
  return {{"format", kKbFormat},
          {"version", p.version},
          {"description", p.description},
          {"states", states},
          {"optimizations", opts}};
}

} // namespace

json to_json(const Policy &policy) { return policy_json(policy, true); }

std::string canonical_text(const Policy &policy) { return policy_json(policy, false).dump(); }

std::string policy_id(const Policy &policy) { return hash_hex(canonical_text(policy)); }

const json &kb_schema() {
  static const json schema = json::parse(kKbSchemaJson);
  return schema;
}

Status validate_policy_json(const json &doc, const std::string &origin) {
  if (auto st = validate_json(doc, kb_schema(), origin); !st) return st;
  return check_references(doc, origin);
}

Expected<Policy> policy_from_json(const json &doc, const std::string &origin) {
  if (auto st = validate_policy_json(doc, origin); !st) return st.error();
  try {
    Policy p;
    p.version = doc.at("version").get<int>();
    p.description = doc.value("description", "");
    for (const auto &s : doc.at("states"))
      p.upsert_state(state_from_json(s));
    for (const auto &o : doc.at("optimizations"))
      p.upsert_optimization(optimization_from_json(o));
    return p;
  } catch (const std::exception &e) { // the schema should have caught it
    return make_error(origin + ": " + e.what(), "schema");
  }
}

Expected<Policy> parse_policy(const std::string &text, const std::string &origin) {
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return make_error(origin + ": not valid JSON", "schema");
  return policy_from_json(j, origin);
}

Expected<Policy> seed_policy() { return parse_policy(kSeedKbJson, "seed_kb.json"); }

} // namespace kbcc::kb
