// KB policy: in-memory model, statistics, candidate/state queries.
// JSON conversion lives in policy_json.cpp, merge in merge.cpp, the LMDB
// store in policy_store.cpp.
#include "kb/policy.h"

#include <algorithm>
#include <cmath>

namespace kbcc::kb {

const std::array<double, SpeedupStats::kBuckets - 1> kSpeedupEdges = {0.5, 0.8, 0.95, 1.0, 1.05, 1.1, 1.25, 1.5, 2.0};

bool MetricRange::contains(double value) const { return (!min || value >= *min) && (!max || value <= *max); }

void SpeedupStats::add(double speedup) {
  if (!(speedup > 0) || !std::isfinite(speedup)) return;
  double l = std::log(speedup);
  min = count == 0 ? speedup : std::min(min, speedup);
  max = count == 0 ? speedup : std::max(max, speedup);
  ++count;
  sum_log += l;
  sum_log_sq += l * l;
  size_t b = 0;
  while (b < kSpeedupEdges.size() && speedup >= kSpeedupEdges[b])
    ++b;
  ++buckets[b];
}

void SpeedupStats::absorb(const SpeedupStats &o) {
  if (o.count == 0) return;
  min = count == 0 ? o.min : std::min(min, o.min);
  max = count == 0 ? o.max : std::max(max, o.max);
  count += o.count;
  sum_log += o.sum_log;
  sum_log_sq += o.sum_log_sq;
  for (size_t i = 0; i < kBuckets; ++i)
    buckets[i] += o.buckets[i];
}

double SpeedupStats::geomean() const { return count ? std::exp(sum_log / static_cast<double>(count)) : 0; }

double SpeedupStats::quantile(double q) const {
  if (count == 0) return 0;
  double rank = q * static_cast<double>(count);
  uint64_t seen = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    seen += buckets[b];
    if (static_cast<double>(seen) >= rank && buckets[b]) {
      double lo = b == 0 ? min : kSpeedupEdges[b - 1];
      double hi = b == kBuckets - 1 ? max : kSpeedupEdges[b];
      lo = std::max(lo, min);
      hi = std::min(hi, max);
      return std::sqrt(lo * hi); // geometric middle of the bucket
    }
  }
  return max;
}

namespace {

template <class T> auto find_by_id(std::vector<T> &v, const std::string &id) {
  auto it = std::lower_bound(v.begin(), v.end(), id, [](const T &x, const std::string &k) { return x.id < k; });
  return it != v.end() && it->id == id ? &*it : nullptr;
}

template <class T> void upsert_by_id(std::vector<T> &v, T x) {
  auto it = std::lower_bound(v.begin(), v.end(), x.id, [](const T &e, const std::string &k) { return e.id < k; });
  if (it != v.end() && it->id == x.id)
    *it = std::move(x);
  else
    v.insert(it, std::move(x));
}

void add_evidence(StatsSummary &s, const Evidence &e) {
  s.attempts += e.attempts;
  s.successes += e.successes;
  s.compile_failures += e.compile_failures;
  s.validation_failures += e.validation_failures;
}

} // namespace

const State *Policy::find_state(const std::string &id) const { return const_cast<Policy *>(this)->find_state(id); }
State *Policy::find_state(const std::string &id) { return find_by_id(states, id); }
const Optimization *Policy::find_optimization(const std::string &id) const {
  return const_cast<Policy *>(this)->find_optimization(id);
}
Optimization *Policy::find_optimization(const std::string &id) { return find_by_id(optimizations, id); }
void Policy::upsert_state(State s) { upsert_by_id(states, std::move(s)); }
void Policy::upsert_optimization(Optimization o) { upsert_by_id(optimizations, std::move(o)); }

namespace {

void count(Evidence &e, const Outcome &outcome) {
  ++e.attempts;
  if (!outcome.compiled)
    ++e.compile_failures;
  else if (!outcome.validated)
    ++e.validation_failures;
  else
    e.speedup.add(outcome.speedup);
  if (outcome.success && outcome.validated) ++e.successes;
}

} // namespace

Status Policy::record(const std::string &state, const std::string &optimization, const std::string &arch,
                      const std::string &contributor, const Outcome &outcome) {
  Optimization *o = find_optimization(optimization);
  if (!o) return make_error("KB: unknown optimization '" + optimization + "'", "kb-unknown");
  if (arch.empty() || contributor.empty()) return make_error("KB: evidence needs an arch and a contributor", "kb-bad");
  count(o->stats[arch][state.empty() ? "*" : state][contributor], outcome);
  return {};
}

Status Policy::record_parameters(const std::string &optimization, const std::string &arch,
                                 const std::string &contributor, const std::map<std::string, std::string> &params,
                                 const Outcome &outcome) {
  Optimization *o = find_optimization(optimization);
  if (!o) return make_error("KB: unknown optimization '" + optimization + "'", "kb-unknown");
  if (arch.empty() || contributor.empty()) return make_error("KB: evidence needs an arch and a contributor", "kb-bad");
  for (const auto &[name, value] : params)
    count(o->parameters[arch][name + "=" + value][contributor], outcome);
  return {};
}

StatsSummary Policy::parameter_summary(const std::string &optimization, const std::string &parameter,
                                       const std::string &arch) const {
  StatsSummary s;
  const Optimization *o = find_optimization(optimization);
  if (!o) return s;
  SpeedupStats dist;
  std::vector<std::string> who;
  for (const auto &[a, per_value] : o->parameters) {
    if (!arch.empty() && a != arch) continue;
    auto it = per_value.find(parameter);
    if (it == per_value.end()) continue;
    for (const auto &[c, e] : it->second) {
      add_evidence(s, e);
      dist.absorb(e.speedup);
      who.push_back(c);
    }
  }
  std::sort(who.begin(), who.end());
  s.contributors = static_cast<uint32_t>(std::unique(who.begin(), who.end()) - who.begin());
  s.success_rate = s.attempts ? static_cast<double>(s.successes) / static_cast<double>(s.attempts) : 0;
  s.geomean_speedup = dist.geomean();
  s.median_speedup = dist.quantile(0.5);
  s.max_speedup = dist.count ? dist.max : 0;
  s.confidence = 1.0 - 1.0 / std::sqrt(1.0 + static_cast<double>(s.attempts));
  return s;
}

StatsSummary Policy::summary(const std::string &optimization, const std::string &arch, const std::string &state) const {
  StatsSummary s;
  const Optimization *o = find_optimization(optimization);
  if (!o) return s;
  SpeedupStats dist;
  std::vector<std::string> who;
  for (const auto &[a, per_state] : o->stats) {
    if (!arch.empty() && a != arch) continue;
    for (const auto &[st, per_contributor] : per_state) {
      if (!state.empty() && st != state) continue;
      for (const auto &[c, e] : per_contributor) {
        add_evidence(s, e);
        dist.absorb(e.speedup);
        who.push_back(c);
      }
    }
  }
  std::sort(who.begin(), who.end());
  s.contributors = static_cast<uint32_t>(std::unique(who.begin(), who.end()) - who.begin());
  s.success_rate = s.attempts ? static_cast<double>(s.successes) / static_cast<double>(s.attempts) : 0;
  s.geomean_speedup = dist.geomean();
  s.median_speedup = dist.quantile(0.5);
  s.max_speedup = dist.count ? dist.max : 0;
  s.confidence = 1.0 - 1.0 / std::sqrt(1.0 + static_cast<double>(s.attempts));
  return s;
}

std::vector<const Optimization *> Policy::candidates(const std::string &state, int arch) const {
  std::vector<const Optimization *> out;
  auto usable = [&](const Optimization *o) {
    return o && (arch == 0 || o->applies_when.min_arch <= arch) && std::find(out.begin(), out.end(), o) == out.end();
  };
  if (const State *s = find_state(state))
    for (const auto &id : s->optimizations)
      if (const Optimization *o = find_optimization(id); usable(o)) out.push_back(o);
  for (const auto &o : optimizations) {
    const auto &st = o.applies_when.states;
    bool names = std::find(st.begin(), st.end(), state) != st.end() || std::find(st.begin(), st.end(), "*") != st.end();
    if (names && usable(&o)) out.push_back(&o);
  }
  return out;
}

std::vector<std::pair<std::string, double>> Policy::match_states(const std::map<std::string, double> &metrics) const {
  struct Match {
    std::string id;
    double fraction;
    size_t present;
  };
  std::vector<Match> found;
  for (const auto &s : states) {
    size_t present = 0, ok = 0;
    for (const auto &r : s.signature) {
      auto it = metrics.find(r.metric);
      if (it == metrics.end()) continue;
      ++present;
      ok += r.contains(it->second);
    }
    if (present == 0) continue;
    double f = static_cast<double>(ok) / static_cast<double>(present);
    if (f >= 0.5) found.push_back({s.id, f, present});
  }
  std::sort(found.begin(), found.end(), [](const Match &a, const Match &b) {
    if (a.fraction != b.fraction) return a.fraction > b.fraction;
    if (a.present != b.present) return a.present > b.present;
    return a.id < b.id;
  });
  std::vector<std::pair<std::string, double>> out;
  for (const auto &m : found)
    out.emplace_back(m.id, m.fraction);
  return out;
}

} // namespace kbcc::kb
