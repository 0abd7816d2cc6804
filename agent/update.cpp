#include "agent/update.h"

#include <algorithm>
#include <cmath>

namespace kbcc::agent {

const char *outcome_name(Outcome o) {
  switch (o) {
  case Outcome::Improved:
    return "improved";
  case Outcome::Neutral:
    return "neutral";
  case Outcome::Regressed:
    return "regressed";
  case Outcome::Failed:
    return "failed";
  }
  return "?";
}

double speedup_of(const Timing &reference, const Timing &candidate) {
  if (reference.median_ms <= 0 || candidate.median_ms <= 0) return 0;
  return reference.median_ms / candidate.median_ms;
}

bool significantly_faster(const Timing &reference, const Timing &candidate, const NoiseModel &noise) {
  if (reference.median_ms <= 0 || candidate.median_ms <= 0) return false;
  double gain = reference.median_ms - candidate.median_ms;
  double needed =
      std::max(noise.min_gain * reference.median_ms, noise.noise_factor * (reference.spread_ms + candidate.spread_ms));
  return gain > needed;
}

Outcome classify(const Evaluation &eval, const Timing &reference, const NoiseModel &noise) {
  if (!eval.compiled || !eval.validated || !eval.sanitizer_clean) return Outcome::Failed;
  if (significantly_faster(reference, eval.timing, noise)) return Outcome::Improved;
  if (significantly_faster(eval.timing, reference, noise)) return Outcome::Regressed;
  return Outcome::Neutral;
}

static bool within_20pct(double speedup, double predicted) {
  return predicted > 0 && std::fabs(speedup - predicted) <= 0.2 * predicted;
}

void apply_attempt(OptionStats &s, Outcome outcome, double speedup, double predicted) {
  ++s.attempts;
  if (outcome == Outcome::Failed) {
    ++s.failures;
    s.confidence = std::clamp(s.confidence - 0.1, 0.1, 1.0);
    return;
  }
  if (outcome == Outcome::Improved) ++s.successes;
  if (outcome == Outcome::Regressed) ++s.regressions;
  if (speedup > 0) {
    ++s.speedup_count;
    double delta = speedup - s.speedup_mean;
    if (s.speedup_count == 1) {
      s.speedup_mean = speedup;
      s.speedup_m2 = 0;
      s.speedup_min = s.speedup_max = speedup;
    } else {
      s.speedup_mean += delta / s.speedup_count;
      s.speedup_m2 += delta * (speedup - s.speedup_mean);
      s.speedup_min = std::min(s.speedup_min, speedup);
      s.speedup_max = std::max(s.speedup_max, speedup);
    }
  }
  s.confidence = std::clamp(s.confidence + (within_20pct(speedup, predicted) ? 0.1 : -0.1), 0.1, 1.0);
}

double expected_speedup(const Option &o) {
  const OptionStats &s = o.stats;
  const double prior_weight = 2.0;
  double mean =
      (o.predicted_speedup * prior_weight + s.speedup_mean * s.speedup_count) / (prior_weight + s.speedup_count);
  double p_valid = (s.attempts - s.failures + 1.0) / (s.attempts + 2.0); // Laplace estimate
  return 1.0 + p_valid * (mean - 1.0);
}

double reward(Outcome outcome, double speedup, double predicted) {
  if (outcome == Outcome::Failed) return -1.0;
  double r = speedup - 1.0;
  if (within_20pct(speedup, predicted)) r += 0.2;
  if (outcome == Outcome::Regressed) r -= 0.5;
  return r;
}

} // namespace kbcc::agent
