// Deterministic KB merge. Every choice is a maximum under a total order that
// does not depend on argument order, and every union is a set union, so
// merge is associative, commutative and idempotent.
#include "kb/policy.h"

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

namespace kbcc::kb {
namespace {

std::vector<std::string> united(const std::vector<std::string> &a, const std::vector<std::string> &b) {
  std::set<std::string> s(a.begin(), a.end());
  s.insert(b.begin(), b.end());
  return {s.begin(), s.end()};
}

// Definition text of a state or optimization without its insights and
// evidence (those merge separately).
std::string definition_text(State s) {
  s.insights.clear();
  nlohmann::json sig = nlohmann::json::array();
  for (const auto &r : s.signature)
    sig.push_back({r.metric, r.min ? nlohmann::json(*r.min) : nlohmann::json(nullptr),
                   r.max ? nlohmann::json(*r.max) : nlohmann::json(nullptr)});
  return nlohmann::json{s.id, s.name, s.primary_bottleneck, s.secondary, sig, s.description, s.optimizations}.dump();
}

std::string definition_text(const Optimization &o) {
  return nlohmann::json{o.id,
                        o.technique,
                        o.description,
                        o.category,
                        o.applies_when.states,
                        o.applies_when.conditions,
                        o.applies_when.min_arch,
                        o.mechanical ? *o.mechanical : std::string("\x01none"),
                        o.prior.success_rate,
                        o.prior.typical_speedup}
      .dump();
}

// True when `b`'s definition wins over `a`'s: higher revision, then text.
template <class T> bool definition_wins(const T &a, const T &b) {
  if (a.revision != b.revision) return b.revision > a.revision;
  return definition_text(b) > definition_text(a);
}

std::string evidence_text(const Evidence &e) {
  const auto &s = e.speedup;
  return nlohmann::json{e.attempts, e.successes, e.compile_failures, e.validation_failures,
                        s.count,    s.sum_log,   s.sum_log_sq,       s.min,
                        s.max,      s.buckets}
      .dump();
}

// A contributor's counters only grow: the more advanced record holds all the
// evidence of the other, so keeping it never loses or double counts.
const Evidence &more_advanced(const Evidence &a, const Evidence &b) {
  auto key = [](const Evidence &e) {
    return std::make_tuple(e.attempts, e.successes + e.compile_failures + e.validation_failures, e.speedup.count);
  };
  if (key(a) != key(b)) return key(b) > key(a) ? b : a;
  return evidence_text(b) > evidence_text(a) ? b : a;
}

using Stats = decltype(Optimization::stats);

Stats merge_stats(const Stats &a, const Stats &b) {
  Stats out = a;
  for (const auto &[arch, per_state] : b)
    for (const auto &[state, per_contributor] : per_state) {
      auto &dst = out[arch][state];
      for (const auto &[c, e] : per_contributor) {
        auto it = dst.find(c);
        dst[c] = it == dst.end() ? e : more_advanced(it->second, e);
      }
    }
  // Arch and state keys without evidence are kept too (set union).
  for (const auto &[arch, per_state] : b) {
    auto &dst = out[arch];
    for (const auto &[state, per_contributor] : per_state)
      dst[state];
  }
  return out;
}

State merge_state(const State &a, const State &b) {
  State out = definition_wins(a, b) ? b : a;
  out.insights = united(a.insights, b.insights);
  return out;
}

Optimization merge_optimization(const Optimization &a, const Optimization &b) {
  Optimization out = definition_wins(a, b) ? b : a;
  out.insights = united(a.insights, b.insights);
  out.stats = merge_stats(a.stats, b.stats);
  out.parameters = merge_stats(a.parameters, b.parameters);
  return out;
}

} // namespace

Policy merge(const Policy &a, const Policy &b) {
  Policy out;
  out.version = std::max(a.version, b.version);
  out.description = std::max(a.description, b.description);
  out.states = a.states;
  for (const auto &s : b.states) {
    const State *mine = out.find_state(s.id);
    out.upsert_state(mine ? merge_state(*mine, s) : s);
  }
  out.optimizations = a.optimizations;
  for (const auto &o : b.optimizations) {
    const Optimization *mine = out.find_optimization(o.id);
    out.upsert_optimization(mine ? merge_optimization(*mine, o) : o);
  }
  return out;
}

} // namespace kbcc::kb
