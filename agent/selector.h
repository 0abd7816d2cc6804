// Optimization selector: weighted random top-k over the KB's candidates by
// expected gain and confidence, with exploration, or greedy (the first
// trajectory of a kernel follows the KB). Deterministic for a seed.
#pragma once
#include "agent/policy.h"

#include <cstdint>
#include <functional>
#include <optional>

namespace kbcc::agent {

// SplitMix64: a tiny generator whose sequence is the same on every platform
// (std:: distributions are not), so a seed reproduces a run exactly.
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  double uniform(); // [0, 1)
  // A generator for a sub-task (kernel, trajectory) that does not depend on
  // how many numbers other sub-tasks drew.
  Rng fork(uint64_t stream) const;

private:
  uint64_t state_;
};

struct SelectorOptions {
  int top_k = 3;
  double temperature = 0.5;  // softmax temperature over scores
  double exploration = 0.15; // probability of a uniform pick among all eligible
  double optimism = 0.05;    // bonus for little-tried options: optimism / sqrt(1 + attempts)
  bool greedy = false;       // the best score (ties at random), no exploration
};

struct Choice {
  Option option;
  double score = 0;
  bool explored = false; // picked by the exploration branch
};

// Score of an option: (expected_speedup - 1) * confidence + optimism bonus.
double selection_score(const Option &option, const SelectorOptions &options);

// Picks one of `candidates` for which `eligible` holds (none when empty).
std::optional<Choice> select_option(const std::vector<Option> &candidates,
                                    const std::function<bool(const Option &)> &eligible, const SelectorOptions &options,
                                    Rng &rng);

} // namespace kbcc::agent
