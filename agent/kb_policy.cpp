#include "agent/kb_policy.h"

#include "agent/state.h"
#include "tooling/kernel.h"

#include <algorithm>
#include <set>

namespace kbcc::agent {
namespace {

std::string join(const std::vector<std::string> &v, const char *sep) {
  std::string out;
  for (const auto &s : v)
    out += (out.empty() ? "" : sep) + s;
  return out;
}

// Signature ranges of a discovered state: +-15 points around the measured
// utilization metrics.
std::vector<kb::MetricRange> ranges_around(const Metrics &m) {
  std::vector<kb::MetricRange> out;
  for (const char *k : {"dram_throughput_pct", "l2_throughput_pct", "sm_throughput_pct", "achieved_occupancy_pct"}) {
    auto it = m.find(k);
    if (it == m.end()) continue;
    kb::MetricRange r;
    r.metric = k;
    r.min = std::max(0.0, it->second - 15);
    r.max = std::min(100.0, it->second + 15);
    out.push_back(r);
  }
  return out;
}

// Every definition that differs from `before` gets its revision bumped, so
// a merge prefers the edited definition.
void bump_revisions(const kb::Policy &before, kb::Policy &after) {
  for (auto &s : after.states)
    if (const kb::State *old = before.find_state(s.id))
      if (old->name != s.name || old->description != s.description || old->optimizations != s.optimizations ||
          old->insights != s.insights || old->secondary != s.secondary ||
          old->primary_bottleneck != s.primary_bottleneck || old->signature.size() != s.signature.size())
        s.revision = std::max(s.revision, old->revision + 1);
  for (auto &o : after.optimizations)
    if (const kb::Optimization *old = before.find_optimization(o.id))
      if (old->description != o.description || old->insights != o.insights || old->technique != o.technique ||
          old->prior.typical_speedup != o.prior.typical_speedup || old->prior.success_rate != o.prior.success_rate ||
          old->mechanical != o.mechanical || old->applies_when.states != o.applies_when.states)
        o.revision = std::max(o.revision, old->revision + 1);
}

} // namespace

std::string kb_bottleneck(const std::string &c) {
  if (c == "memory_bound") return "memory_bandwidth";
  if (c == "compute_bound") return "compute_fp32";
  if (c == "latency_bound") return "occupancy";
  if (c == "underutilized") return "parallelism";
  return "other";
}

namespace {

kb::Outcome outcome_of(const Attempt &a) {
  kb::Outcome out;
  out.compiled = a.compiled;
  out.validated = a.outcome != Outcome::Failed;
  out.success = a.outcome == Outcome::Improved;
  out.speedup = a.speedup;
  return out;
}

} // namespace

KbPolicy::KbPolicy(kb::Policy policy, kb::PolicyStore *store, std::string contributor)
    : policy_(std::move(policy)), store_(store), contributor_(std::move(contributor)) {}

std::vector<State> KbPolicy::states() const {
  std::vector<State> out;
  for (const auto &s : policy_.states)
    out.push_back(State{s.id, s.primary_bottleneck, s.description, {}});
  return out;
}

std::optional<std::pair<std::string, double>> KbPolicy::nearest_state(const Metrics &metrics) const {
  auto matches = policy_.match_states(metrics);
  if (matches.empty()) return std::nullopt;
  return std::make_pair(matches[0].first, 1.0 - matches[0].second);
}

Status KbPolicy::add_state(const State &state, const std::string &like) {
  kb::State s;
  s.id = state.name;
  s.name = "Discovered: " + state.bottleneck;
  s.primary_bottleneck = kb_bottleneck(state.bottleneck);
  s.signature = ranges_around(state.signature);
  s.description = state.description;
  if (const kb::State *l = policy_.find_state(like)) s.optimizations = l->optimizations;
  auto fn = [&](kb::Policy &p) {
    if (!p.find_state(s.id)) p.upsert_state(s);
    return Status::ok();
  };
  if (store_) {
    Status st = store_->update(fn);
    if (!st) return st;
  }
  return fn(policy_);
}

Option KbPolicy::to_option(const kb::Optimization &o, const std::string &state, const std::string &arch) const {
  Option opt;
  opt.id = o.id;
  opt.description = o.technique + ": " + o.description;
  if (!o.applies_when.conditions.empty()) opt.description += "\nConditions: " + join(o.applies_when.conditions, "; ");
  opt.mechanical = o.mechanical.value_or("");
  opt.insights = join(o.insights, "\n");
  kb::StatsSummary all = policy_.summary(o.id);
  uint64_t valid_all = all.attempts - all.compile_failures - all.validation_failures;
  opt.predicted_speedup = valid_all > 0 && all.geomean_speedup > 0
                              ? (o.prior.typical_speedup * 2 + all.geomean_speedup * valid_all) / (2.0 + valid_all)
                              : o.prior.typical_speedup;
  kb::StatsSummary here = policy_.summary(o.id, arch, state);
  opt.other_arch_attempts = static_cast<int>(all.attempts - policy_.summary(o.id, arch).attempts);
  OptionStats &s = opt.stats;
  s.attempts = static_cast<int>(here.attempts);
  s.successes = static_cast<int>(here.successes);
  s.failures = static_cast<int>(here.compile_failures + here.validation_failures);
  s.speedup_count = s.attempts - s.failures;
  s.speedup_mean = here.geomean_speedup > 0 ? here.geomean_speedup : 1.0;
  s.speedup_max = here.max_speedup;
  // Posterior success rate with the KB prior as two pseudo-attempts.
  s.confidence = std::clamp((here.successes + o.prior.success_rate * 2) / (here.attempts + 2.0), 0.1, 1.0);
  return opt;
}

std::vector<Option> KbPolicy::options(const std::string &state, const std::string &arch) const {
  std::vector<Option> out;
  for (const kb::Optimization *o : policy_.candidates(state, tooling::cuda_arch_number(arch) / 10))
    out.push_back(to_option(*o, state, arch));
  return out;
}

std::vector<Option> KbPolicy::all_options(const std::string &state, const std::string &arch) const {
  std::vector<Option> out;
  int sm = tooling::cuda_arch_number(arch) / 10;
  for (const auto &o : policy_.optimizations)
    if (sm == 0 || o.applies_when.min_arch <= sm) out.push_back(to_option(o, state, arch));
  return out;
}

Status KbPolicy::record(const std::string &state, const std::string &option, const std::string &arch,
                        const Attempt &a) {
  kb::Outcome out = outcome_of(a);
  auto fn = [&](kb::Policy &p) { return p.record(state, option, arch, contributor_, out); };
  if (store_) {
    Status st = store_->update(fn);
    if (!st) return st;
  }
  return fn(policy_);
}

std::vector<std::string> KbPolicy::parameter_ranking(const std::string &option, const std::string &arch) const {
  const kb::Optimization *o = policy_.find_optimization(option);
  if (!o) return {};
  for (const std::string &scope : {arch, std::string()}) {
    std::vector<std::pair<double, std::string>> scored;
    std::set<std::string> values;
    for (const auto &[a, per_value] : o->parameters)
      if (scope.empty() || a == scope)
        for (const auto &[value, by] : per_value)
          values.insert(value);
    for (const std::string &v : values) {
      kb::StatsSummary s = policy_.parameter_summary(option, v, scope);
      if (s.geomean_speedup > 0) scored.push_back({s.geomean_speedup, v});
    }
    if (scored.empty()) continue;
    std::stable_sort(scored.begin(), scored.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    std::vector<std::string> out;
    for (const auto &[score, v] : scored)
      out.push_back(v);
    return out;
  }
  return {};
}

Status KbPolicy::record_parameters(const std::string &option, const std::string &arch,
                                   const std::map<std::string, std::string> &params, const Attempt &a) {
  kb::Outcome out = outcome_of(a);
  auto fn = [&](kb::Policy &p) { return p.record_parameters(option, arch, contributor_, params, out); };
  if (store_) {
    Status st = store_->update(fn);
    if (!st) return st;
  }
  return fn(policy_);
}

nlohmann::json KbPolicy::document() const { return kb::to_json(policy_); }

Status KbPolicy::apply_patch(const nlohmann::json &patch) {
  Status paths = check_patch_paths(patch);
  if (!paths) return paths;
  nlohmann::json next;
  try {
    next = document().patch(patch);
  } catch (const std::exception &e) {
    return make_error(std::string("KB edit does not apply: ") + e.what(), "kb-edit");
  }
  auto edited = kb::policy_from_json(next, "KB edit");
  if (!edited) return make_error("KB edit rejected: " + edited.error().message, "kb-edit");
  bump_revisions(policy_, *edited);
  if (store_) {
    Status st = store_->merge_in(*edited);
    if (!st) return st;
  }
  policy_ = kb::merge(policy_, *edited);
  return Status::ok();
}

} // namespace kbcc::agent
