#include "agent/policy.h"

#include "agent/state.h"
#include "agent/update.h"

#include <cmath>

namespace kbcc::agent {
namespace {

using nlohmann::json;

Status fail(const std::string &what) { return make_error("KB policy: " + what, "kb-policy"); }

Status check_option(const json &o, const std::string &where) {
  if (!o.is_object()) return fail(where + " is not an object");
  if (!o.contains("id") || !o["id"].is_string() || o["id"].get<std::string>().empty())
    return fail(where + ".id must be a non-empty string");
  for (const char *k : {"description", "mechanical", "insights"})
    if (o.contains(k) && !o[k].is_string()) return fail(where + "." + k + " must be a string");
  if (o.contains("predicted_speedup") &&
      (!o["predicted_speedup"].is_number() || o["predicted_speedup"].get<double>() <= 0))
    return fail(where + ".predicted_speedup must be a positive number");
  if (o.contains("stats") && !o["stats"].is_object()) return fail(where + ".stats must be an object keyed by arch");
  return Status::ok();
}

Status check_state(const json &s, const std::string &where) {
  if (!s.is_object()) return fail(where + " is not an object");
  if (!s.contains("name") || !s["name"].is_string() || s["name"].get<std::string>().empty())
    return fail(where + ".name must be a non-empty string");
  if (s.contains("signature")) {
    if (!s["signature"].is_object()) return fail(where + ".signature must be an object");
    for (const auto &[k, v] : s["signature"].items())
      if (!v.is_number()) return fail(where + ".signature." + k + " must be a number");
  }
  if (!s.contains("optimizations") || !s["optimizations"].is_array())
    return fail(where + ".optimizations must be an array");
  for (size_t i = 0; i < s["optimizations"].size(); ++i) {
    Status st = check_option(s["optimizations"][i], where + ".optimizations[" + std::to_string(i) + "]");
    if (!st) return st;
  }
  return Status::ok();
}

json *find_state(json &doc, const std::string &name) {
  for (auto &s : doc["states"])
    if (s["name"] == name) return &s;
  return nullptr;
}

const json *find_state(const json &doc, const std::string &name) {
  for (const auto &s : doc["states"])
    if (s["name"] == name) return &s;
  return nullptr;
}

// Prior for one arch: the seed prediction blended with other archs' means.
double cross_arch_prior(const json &o, const std::string &arch, int &other_attempts) {
  double sum = o.value("predicted_speedup", 1.0), weight = 1.0;
  other_attempts = 0;
  if (!o.contains("stats")) return sum;
  for (const auto &[a, st] : o["stats"].items()) {
    if (a == arch) continue;
    OptionStats s = stats_from_json(st);
    other_attempts += s.attempts;
    sum += s.speedup_mean * s.speedup_count;
    weight += s.speedup_count;
  }
  return sum / weight;
}

} // namespace

json stats_to_json(const OptionStats &s) {
  return json{{"attempts", s.attempts},       {"successes", s.successes},         {"failures", s.failures},
              {"regressions", s.regressions}, {"speedup_count", s.speedup_count}, {"speedup_mean", s.speedup_mean},
              {"speedup_m2", s.speedup_m2},   {"speedup_min", s.speedup_min},     {"speedup_max", s.speedup_max},
              {"confidence", s.confidence}};
}

OptionStats stats_from_json(const json &j) {
  OptionStats s;
  if (!j.is_object()) return s;
  s.attempts = j.value("attempts", 0);
  s.successes = j.value("successes", 0);
  s.failures = j.value("failures", 0);
  s.regressions = j.value("regressions", 0);
  s.speedup_count = j.value("speedup_count", 0);
  s.speedup_mean = j.value("speedup_mean", 1.0);
  s.speedup_m2 = j.value("speedup_m2", 0.0);
  s.speedup_min = j.value("speedup_min", 0.0);
  s.speedup_max = j.value("speedup_max", 0.0);
  s.confidence = j.value("confidence", 0.5);
  return s;
}

Status check_policy_document(const json &doc) {
  if (!doc.is_object()) return fail("document is not a JSON object");
  if (!doc.contains("states") || !doc["states"].is_array()) return fail("\"states\" must be an array");
  std::vector<std::string> names;
  for (size_t i = 0; i < doc["states"].size(); ++i) {
    Status st = check_state(doc["states"][i], "states[" + std::to_string(i) + "]");
    if (!st) return st;
    std::string name = doc["states"][i]["name"];
    for (const auto &n : names)
      if (n == name) return fail("duplicate state \"" + name + "\"");
    names.push_back(name);
  }
  return Status::ok();
}

Expected<JsonPolicy> JsonPolicy::from_json(const json &doc) {
  Status st = check_policy_document(doc);
  if (!st) return st.error();
  JsonPolicy p;
  p.doc_ = doc;
  return p;
}

std::vector<State> JsonPolicy::states() const {
  std::vector<State> out;
  for (const auto &s : doc_["states"]) {
    State st;
    st.name = s["name"];
    st.bottleneck = s.value("bottleneck", "");
    st.description = s.value("description", "");
    if (s.contains("signature"))
      for (const auto &[k, v] : s["signature"].items())
        st.signature[k] = v.get<double>();
    out.push_back(std::move(st));
  }
  return out;
}

Status JsonPolicy::add_state(const State &state, const std::string &like) {
  if (find_state(doc_, state.name)) return fail("state \"" + state.name + "\" already exists");
  json s{{"name", state.name},
         {"bottleneck", state.bottleneck},
         {"description", state.description},
         {"signature", state.signature},
         {"optimizations", json::array()}};
  if (const json *src = find_state(doc_, like))
    for (json o : (*src)["optimizations"]) {
      int other = 0;
      o["predicted_speedup"] = cross_arch_prior(o, "", other);
      o.erase("stats");
      s["optimizations"].push_back(std::move(o));
    }
  doc_["states"].push_back(std::move(s));
  return Status::ok();
}

std::optional<std::pair<std::string, double>> JsonPolicy::nearest_state(const Metrics &metrics) const {
  std::optional<std::pair<std::string, double>> best;
  for (const State &s : states()) {
    double d = signature_distance(metrics, s.signature);
    if (std::isfinite(d) && (!best || d < best->second)) best = std::make_pair(s.name, d);
  }
  return best;
}

std::vector<Option> JsonPolicy::all_options(const std::string &state, const std::string &arch) const {
  std::vector<Option> out = options(state, arch);
  for (const State &s : states())
    for (Option o : options(s.name, arch)) {
      bool seen = false;
      for (const Option &e : out)
        seen |= e.id == o.id;
      if (seen) continue;
      o.stats = OptionStats{};
      out.push_back(std::move(o));
    }
  return out;
}

std::vector<Option> JsonPolicy::options(const std::string &state, const std::string &arch) const {
  std::vector<Option> out;
  const json *s = find_state(doc_, state);
  if (!s) return out;
  for (const auto &o : (*s)["optimizations"]) {
    Option opt;
    opt.id = o["id"];
    opt.description = o.value("description", "");
    opt.mechanical = o.value("mechanical", "");
    opt.insights = o.value("insights", "");
    opt.predicted_speedup = cross_arch_prior(o, arch, opt.other_arch_attempts);
    if (o.contains("stats") && o["stats"].contains(arch)) opt.stats = stats_from_json(o["stats"][arch]);
    out.push_back(std::move(opt));
  }
  return out;
}

Status JsonPolicy::record(const std::string &state, const std::string &option, const std::string &arch,
                          const Attempt &attempt) {
  json *s = find_state(doc_, state);
  if (!s) return fail("no state \"" + state + "\"");
  for (auto &o : (*s)["optimizations"])
    if (o["id"] == option) {
      OptionStats stats =
          o.contains("stats") && o["stats"].contains(arch) ? stats_from_json(o["stats"][arch]) : OptionStats{};
      apply_attempt(stats, attempt.outcome, attempt.speedup, attempt.predicted);
      o["stats"][arch] = stats_to_json(stats);
      return Status::ok();
    }
  // An option from the fallback pool: adopt it into this state first.
  for (const auto &other : doc_["states"])
    for (json o : other["optimizations"])
      if (o["id"] == option) {
        o.erase("stats");
        (*s)["optimizations"].push_back(std::move(o));
        return record(state, option, arch, attempt);
      }
  return fail("state \"" + state + "\" has no optimization \"" + option + "\"");
}

Status check_patch_paths(const json &patch) {
  if (!patch.is_array()) return fail("KB edit is not a JSON patch array");
  for (const auto &op : patch) {
    if (!op.is_object() || !op.contains("path") || !op["path"].is_string())
      return fail("KB edit operation without a path");
    std::string path = op["path"];
    std::string from = op.contains("from") && op["from"].is_string() ? op["from"].get<std::string>() : "";
    for (const std::string &p : {path, from})
      if (p.find("/stats") != std::string::npos || p.find("/summary") != std::string::npos)
        return fail("KB edit may not touch measured statistics (" + p + ")");
  }
  return Status::ok();
}

Status JsonPolicy::apply_patch(const json &patch) {
  Status paths = check_patch_paths(patch);
  if (!paths) return paths;
  json next;
  try {
    next = doc_.patch(patch);
  } catch (const std::exception &e) {
    return fail(std::string("KB edit does not apply: ") + e.what());
  }
  Status st = check_policy_document(next);
  if (!st) return make_error("KB edit rejected: " + st.error().message, "kb-edit");
  doc_ = std::move(next);
  return Status::ok();
}

} // namespace kbcc::agent
