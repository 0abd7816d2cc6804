// State extractor: maps profiler metrics to a KB performance state by the
// nearest metric signature, adding a state when nothing is close enough.
#pragma once
#include "agent/policy.h"

#include <limits>

namespace kbcc::agent {

struct StateMatch {
  std::string name;
  double distance = std::numeric_limits<double>::infinity();
  bool is_new = false;
};

// RMS of per-metric differences over the signature's keys: *_pct metrics
// scaled by 100, others relative to their magnitude; a signature key the
// metrics lack counts as a difference of 0.5. Infinity when no key overlaps.
double signature_distance(const Metrics &metrics, const Metrics &signature);

// The dominant bottleneck named from the metrics: "memory_bound",
// "compute_bound", "latency_bound" (low occupancy), or "underutilized".
std::string classify_bottleneck(const Metrics &metrics);

// The nearest state within `threshold`; otherwise adds a new state named
// "discovered_<bottleneck>_<n>" with `metrics` as signature, its candidates
// copied from the nearest state (or the first one with the same bottleneck).
// Without metrics (no profiler) the state is "unprofiled".
Expected<StateMatch> extract_state(Policy &policy, const Metrics &metrics, double threshold = 0.2);

} // namespace kbcc::agent
