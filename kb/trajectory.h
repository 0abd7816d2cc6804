// Trajectories of the optimization loop (the replay buffer): for one kernel
// and arch, the sequence of (state, optimization) steps tried, each with its
// outcome and cost. Stored in the trajectories table, keyed by id.
#pragma once

#include "cache/env.h"
#include "support/expected.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kbcc::kb {

struct TrajectoryStep {
  uint32_t index = 0;       // 0-based position in the trajectory
  std::string state;        // KB state id the kernel was in before the step
  std::string optimization; // KB optimization id applied
  std::string lowering;     // "llm" or the mechanical transform id
  bool compiled = false;
  bool validated = false;
  double speedup = 0; // baseline median / candidate median (0 when not timed)
  double candidate_median_us = 0;
  std::string next_state; // state after the step (empty when not profiled)
  std::string failure;    // reason when not compiled/validated, else empty
  uint64_t tokens_in = 0;
  uint64_t tokens_out = 0;
  double gpu_seconds = 0; // GPU time spent validating and timing
  double wall_seconds = 0;
  uint32_t candidates = 1; // candidates evaluated (parameter settings of a mechanical step, LLM repairs)
  nlohmann::json params = nlohmann::json::object();  // the transform parameters of the step's best candidate
  std::string candidate_id;                          // VariantRecord::id() of the candidate, if any
  nlohmann::json metrics = nlohmann::json::object(); // profiler metrics of the candidate
};

struct Trajectory {
  std::string id; // unique (e.g. hash of kernel, arch, start time, pid)
  std::string kernel_hash;
  std::string arch;
  std::string gpu_name;
  std::string llm_model; // empty when mechanical only
  std::string contributor;
  std::string kb_snapshot; // KB policy id it started from
  uint32_t index = 0;      // position among its kernel's trajectories in one optimize run
  int64_t started = 0;     // unix seconds
  int64_t finished = 0;
  double baseline_median_us = 0;
  std::string initial_state;
  double best_speedup = 0; // of the validated steps, 0 when none
  std::string best_candidate_id;
  double cost = 0; // LLM cost in the configured currency
  std::vector<TrajectoryStep> steps;
};

nlohmann::json to_json(const Trajectory &t);
Expected<Trajectory> trajectory_from_json(const nlohmann::json &j, const std::string &origin);

class TrajectoryStore {
public:
  explicit TrajectoryStore(cache::Env &env) : env_(env) {}

  // Inserts or replaces the trajectory with the same id.
  Status put(const Trajectory &t);
  Expected<std::optional<Trajectory>> get(const std::string &id);
  // Every trajectory (ordered by id); filters apply when not empty.
  Expected<std::vector<Trajectory>> list(const std::string &kernel_hash = {}, const std::string &arch = {});
  // The `limit` most recent trajectories (by finished time, newest first).
  Expected<std::vector<Trajectory>> recent(size_t limit);

private:
  cache::Env &env_;
};

} // namespace kbcc::kb
