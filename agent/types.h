// Plain data exchanged by the ICRL loop's parts: measurements, candidates and
// the outcome of one optimization attempt.
#pragma once
#include "launch/mapping.h"
#include "tooling/kernel.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbcc::agent {

// Profiler metrics of one kernel run, keyed by stable names (see
// docs/optimize.md: dram_pct, sm_pct, occupancy_pct, registers, ...).
using Metrics = std::map<std::string, double>;

// Timing of one kernel over repeated launches.
struct Timing {
  double median_ms = 0;
  double spread_ms = 0; // half inter-quartile range (or equivalent noise estimate)
  int samples = 0;
};

// One kernel the loop optimizes on the local GPU.
struct KernelTask {
  tooling::Kernel kernel;               // source, params, dependencies, hash
  std::string arch;                     // e.g. "sm_90"
  std::vector<launch::Launch> launches; // one per capture
  std::vector<std::string> captures;    // capture ids (opaque to the loop)
  // The integer arguments of each capture, by parameter name (read from
  // the captures' manifests; empty for a capture that could not be read).
  std::vector<std::map<std::string, int64_t>> arguments;
  // How the kernel was last built (from the registry): the unit and its
  // nvcc command, for compiling candidates the same way.
  std::string tu_path;
  std::vector<std::string> compile_command;
  std::string working_dir;
  // The unit's stored closure (kb/closure.h), which candidates compile from
  // when the store holds it (agent/unit_source.h); empty = the checkout.
  std::string closure;
};

// A candidate replacement of the kernel definition. A launch-changing
// candidate keeps the kernel's name and signature; its launch derives from
// the original's through `launch` (launch/mapping.h).
struct Candidate {
  std::string source;                          // the full replacement definition
  std::vector<std::string> optimizations;      // ids applied so far, in order
  std::string lowering;                        // the transform id, or "llm:<model>"
  std::optional<launch::LaunchMapping> launch; // from the original launch, all steps composed
  std::string numerics;                        // the loosest class of its steps (cache::kNumerics*); "" = exact
  std::string reduction_length;                // "reassociates": the number of reordered terms (mapping language)
  std::vector<std::string> size_params;        // integer parameters a validation may shrink
  std::map<std::string, std::string> params;   // parameters of the last step's transform
};

// Baseline measurement of the original kernel.
struct Measurement {
  Timing timing;
  Metrics metrics;
  double gpu_seconds = 0; // device time spent measuring
};

// Result of compiling, validating and timing one candidate.
struct Evaluation {
  std::string error; // why the candidate was not evaluated (static check, evaluator error); "" when it was
  bool compiled = false;
  std::string compile_log;    // compiler diagnostics when !compiled
  bool validated = false;     // every capture and fuzzed input matched
  std::string validation_log; // first mismatch etc. when !validated
  int captures_checked = 0;   // captures whose preconditions held and that were compared
  int captures_skipped = 0;   // captures where a precondition does not hold (the original runs there)
  double max_error = 0;
  double tolerance = 0; // the tolerance the comparison applied (largest over buffers)
  bool sanitizer_ran = false;
  bool sanitizer_clean = true;
  Timing timing;
  Metrics metrics;
  double gpu_seconds = 0;
};

enum class Outcome {
  Improved,  // validated and faster than the starting point beyond noise
  Neutral,   // validated, within noise
  Regressed, // validated, slower beyond noise
  Failed,    // did not compile, failed validation/sanitizer, or removed work
};

const char *outcome_name(Outcome o);

// One attempt of an optimization, as the policy update sees it.
struct Attempt {
  Outcome outcome = Outcome::Failed;
  bool compiled = false;
  double speedup = 0;   // vs the step's starting point; 0 when not validated
  double predicted = 1; // expected speedup at selection time
};

} // namespace kbcc::agent
