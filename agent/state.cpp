#include "agent/state.h"

#include <cmath>

namespace kbcc::agent {
namespace {

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

double metric(const Metrics &m, const char *key, double fallback) {
  auto it = m.find(key);
  return it == m.end() ? fallback : it->second;
}

} // namespace

double signature_distance(const Metrics &metrics, const Metrics &signature) {
  double sum = 0;
  int n = 0, overlap = 0;
  for (const auto &[key, s] : signature) {
    auto it = metrics.find(key);
    double d = 0.5;
    if (it != metrics.end()) {
      ++overlap;
      double scale = ends_with(key, "_pct") ? 100.0 : std::max({std::fabs(s), std::fabs(it->second), 1.0});
      d = (it->second - s) / scale;
    }
    sum += d * d;
    ++n;
  }
  if (overlap == 0) return std::numeric_limits<double>::infinity();
  return std::sqrt(sum / n);
}

std::string classify_bottleneck(const Metrics &m) {
  double dram = metric(m, "dram_throughput_pct", 0), sm = metric(m, "sm_throughput_pct", 0);
  double occ = metric(m, "achieved_occupancy_pct", 100);
  if (dram >= 60 && dram >= sm) return "memory_bound";
  if (sm >= 60) return "compute_bound";
  if (occ < 40) return "latency_bound";
  return "underutilized";
}

Expected<StateMatch> extract_state(Policy &policy, const Metrics &metrics, double threshold) {
  if (metrics.empty()) { // no profile: one shared state, never a new one per run
    for (const State &s : policy.states())
      if (s.name == "unprofiled") return StateMatch{s.name, 0.0, false};
    Status st = policy.add_state(State{"unprofiled", "other", "kernels measured without a profiler", {}}, "");
    if (!st) return st.error();
    return StateMatch{"unprofiled", 0.0, true};
  }
  StateMatch best;
  std::string same_bottleneck;
  std::string bottleneck = classify_bottleneck(metrics);
  std::vector<State> states = policy.states();
  if (auto n = policy.nearest_state(metrics)) best = StateMatch{n->first, n->second, false};
  for (const State &s : states)
    if (same_bottleneck.empty() && s.bottleneck == bottleneck) same_bottleneck = s.name;
  if (!best.name.empty() && best.distance <= threshold) return best;
  std::string like = !same_bottleneck.empty() ? same_bottleneck : best.name;
  int n = 1;
  auto taken = [&](const std::string &name) {
    for (const State &s : states)
      if (s.name == name) return true;
    return false;
  };
  std::string name;
  do
    name = "discovered_" + bottleneck + "_" + std::to_string(n++);
  while (taken(name));
  State fresh{name, bottleneck, "discovered from measured metrics", metrics};
  Status st = policy.add_state(fresh, like);
  if (!st) return st.error();
  return StateMatch{name, 0.0, true};
}

} // namespace kbcc::agent
