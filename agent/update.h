// Policy-update arithmetic: outcome classification, statistics, reward.
#pragma once
#include "agent/policy.h"

namespace kbcc::agent {

// Thresholds that decide when a timing difference is real.
struct NoiseModel {
  double min_gain = 0.02;    // relative change below this is never significant
  double noise_factor = 2.0; // multiples of the summed spreads
};

// True when `candidate` is faster than `reference` beyond the measured noise.
bool significantly_faster(const Timing &reference, const Timing &candidate, const NoiseModel &noise);

// Classifies an evaluation against the timing it started from.
Outcome classify(const Evaluation &eval, const Timing &reference, const NoiseModel &noise);

// reference.median / candidate.median (0 when either is missing).
double speedup_of(const Timing &reference, const Timing &candidate);

// Folds one attempt into `stats`: counters, the running speedup
// distribution (validated attempts only) and the confidence rule (+0.1 when
// the speedup was within 20% of `predicted`, else -0.1; clipped to [0.1, 1]).
void apply_attempt(OptionStats &stats, Outcome outcome, double speedup, double predicted);

// Expected speedup of trying `option`: the arch's mean (blended with the
// prior by evidence) discounted by the observed failure rate.
double expected_speedup(const Option &option);

// Reward of one step: (speedup - 1), +0.2 when the prediction was within
// 20%, -0.5 when slower; -1 for a failure.
double reward(Outcome outcome, double speedup, double predicted);

} // namespace kbcc::agent
