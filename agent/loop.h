// The ICRL loop for one kernel: baseline -> state -> select -> lower ->
// validate -> evaluate -> policy update, W trajectories of D steps, each step
// continuing from the trajectory's best validated candidate.
#pragma once
#include "agent/evaluator.h"
#include "agent/lowering.h"
#include "agent/policy.h"
#include "agent/selector.h"
#include "agent/update.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

namespace kbcc::agent {

struct LoopOptions {
  int trajectories = 8; // W (the paper saw diminishing returns past 8)
  int depth = 4;        // D (and past 4 steps)
  uint64_t seed = 1;
  double budget_gpu_seconds = 0;   // 0 = unlimited
  double kernel_seconds = 100;     // wall time after which no step of a kernel starts; 0 = unlimited
  long budget_tokens = 0;          // 0 = unlimited
  double early_stop_gain = 0.01;   // a step/trajectory gaining less than this is "flat"
  int step_patience = 2;           // flat steps before a trajectory stops
  int trajectory_patience = 3;     // flat trajectories before the kernel stops
  int max_fixes = 2;               // fixer rounds per step (LLM candidates)
  int candidates_per_step = 8;     // parameter settings a mechanical step evaluates
  bool allow_reassociation = true; // keep candidates of numerics class "reassociates"
  int gradient_every = 3;          // textual-gradient step after every N trajectories (and the last)
  int gradient_window = 5;         // trajectories the textual gradient looks at
  bool confirm = true;             // re-measure baseline and best before storing
  double state_threshold = 0.2;
  NoiseModel noise;
  SelectorOptions selector;
};

// Device time and tokens spent so far, shared by all kernels of a run.
struct Budget {
  double gpu_seconds = 0;
  long tokens = 0;
  double cost = 0;
  bool exhausted(const LoopOptions &o) const {
    return (o.budget_gpu_seconds > 0 && gpu_seconds >= o.budget_gpu_seconds) ||
           (o.budget_tokens > 0 && tokens >= o.budget_tokens);
  }
};

struct StepRecord {
  int index = 0;
  std::string state, option, lowering, next_state;
  bool explored = false;
  Outcome outcome = Outcome::Failed;
  double speedup = 0;       // vs the step's starting point (0 when not validated)
  double total_speedup = 0; // vs the baseline
  double predicted = 1;
  double reward = 0;
  int fix_rounds = 0;
  int candidates = 0;                        // candidates evaluated (parameter settings, or LLM repairs)
  std::map<std::string, std::string> params; // parameters of the step's best candidate
  bool compiled = false, validated = false;
  double candidate_median_ms = 0;
  Metrics metrics; // profile of the candidate
  double wall_seconds = 0;
  std::string error; // why it failed, when it did
  Usage usage;
  double gpu_seconds = 0;
};

struct TrajectoryRecord {
  std::string kernel_hash, kernel_name, arch;
  int index = 0;       // position among the kernel's trajectories in this run
  int64_t started = 0; // unix seconds
  uint64_t seed = 0;
  std::vector<StepRecord> steps;
  double best_speedup = 1; // vs the baseline
  Usage usage;
  double gpu_seconds = 0;
  std::string stop_reason; // depth, early-stop, budget, no-candidates
};

nlohmann::json to_json(const TrajectoryRecord &t);

struct KernelResult {
  Measurement baseline;
  std::optional<Candidate> best; // the best validated candidate, if any beat the baseline
  Evaluation best_eval;
  int best_trajectory = -1; // index of the trajectory that found `best`
  double speedup = 1;       // confirmed speedup of `best`
  bool stored = false;      // went into the variant cache
  std::string verdict;      // why it was (not) stored
  std::vector<TrajectoryRecord> trajectories;
};

// Where results go; each may be left empty.
struct LoopHooks {
  // Stores the best variant (validated and significantly faster); `trajectory`
  // is the index of the trajectory that found it.
  std::function<Status(const KernelTask &, const Candidate &, const Measurement &, const Evaluation &, int trajectory)>
      store_variant;
  // Stores one finished trajectory.
  std::function<Status(const TrajectoryRecord &)> store_trajectory;
  // Textual-gradient KB update over recent trajectories; returns its usage.
  std::function<Expected<Usage>(Policy &, const std::vector<TrajectoryRecord> &)> learn;
  // Called after every step (done of total planned steps).
  std::function<void(long done, long total, const std::string &label)> progress;
  // Monotonic seconds for LoopOptions::kernel_seconds; steady_clock when empty.
  std::function<double()> clock;
};

// Runs the loop for one kernel. Error only when the baseline cannot be measured.
Expected<KernelResult> optimize_kernel(const KernelTask &task, Evaluator &evaluator, Policy &policy, Lowerer &lowerer,
                                       const LoopOptions &options, Budget &budget, const LoopHooks &hooks,
                                       long *progress_done = nullptr, long progress_total = 0);

} // namespace kbcc::agent
