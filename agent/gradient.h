// The textual-gradient policy update (with an LLM): policy evaluation ->
// performance-gap analysis -> KB edit, the edit being an RFC 6902 JSON patch
// applied to the policy document and validated against the KB schema.
#pragma once
#include "agent/llm/client.h"
#include "agent/loop.h"

namespace kbcc::agent {

struct GradientResult {
  Usage usage;
  bool applied = false;
  std::string evaluation; // stage 1 text
  std::string analysis;   // stage 2 text
  std::string message;    // why the edit was not applied, when it was not
};

// Runs the three stages over `recent` trajectories and applies the edit.
// Error only when an LLM call fails; a rejected edit is reported in the result.
Expected<GradientResult> textual_gradient(llm::Client &client, Policy &policy,
                                          const std::vector<TrajectoryRecord> &recent);

// Table of the trajectories' steps (state, optimization, predicted vs measured).
std::string trajectory_table(const std::vector<TrajectoryRecord> &recent);

} // namespace kbcc::agent
