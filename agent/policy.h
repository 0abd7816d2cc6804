// The loop's view of the KB policy: states with metric signatures, and per
// state the optimizations with per-arch statistics. JsonPolicy keeps the
// document in memory; kb/ provides the persistent store behind the same view.
#pragma once
#include "agent/types.h"
#include "support/expected.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kbcc::agent {

// Evidence about one optimization in one state on one arch.
struct OptionStats {
  int attempts = 0;
  int successes = 0;     // validated and faster beyond noise
  int failures = 0;      // did not compile, failed validation or removed work
  int regressions = 0;   // validated but slower beyond noise
  int speedup_count = 0; // validated attempts with a measured speedup
  double speedup_mean = 1.0;
  double speedup_m2 = 0; // Welford sum of squared deviations
  double speedup_min = 0, speedup_max = 0;
  double confidence = 0.5; // in [0.1, 1]
};

struct Option {
  std::string id; // technique id, unique within its state
  std::string description;
  std::string mechanical; // transform id (transform/transform.h); empty = LLM only
  std::string insights;   // textual insights accumulated in the KB
  double predicted_speedup = 1.0;
  OptionStats stats;           // for the arch asked for
  int other_arch_attempts = 0; // evidence from other archs (already folded into predicted_speedup)
};

struct State {
  std::string name;
  std::string bottleneck;
  std::string description;
  Metrics signature; // typical metric values of kernels in this state
};

class Policy {
public:
  virtual ~Policy() = default;
  virtual std::vector<State> states() const = 0;
  // The state whose signature is nearest to `metrics` and its distance
  // (0 = perfect match; 0.2 is the default acceptance threshold); nullopt
  // when no state's signature shares a metric with `metrics`.
  virtual std::optional<std::pair<std::string, double>> nearest_state(const Metrics &metrics) const = 0;
  // Adds a state; its optimizations are copied from `like` (stats reset) so a
  // new state always has candidates.
  virtual Status add_state(const State &state, const std::string &like) = 0;
  // The optimizations of `state` with stats for `arch`. predicted_speedup is
  // the arch's measured mean when it has evidence, else the cross-arch prior.
  virtual std::vector<Option> options(const std::string &state, const std::string &arch) const = 0;
  // Every optimization of the KB (each id once) with stats for (state, arch):
  // the fallback pool when none of the state's own candidates can be lowered.
  virtual std::vector<Option> all_options(const std::string &state, const std::string &arch) const = 0;
  // Folds one attempt of `option` in `state` on `arch` into the evidence.
  virtual Status record(const std::string &state, const std::string &option, const std::string &arch,
                        const Attempt &attempt) = 0;
  // Parameter values ("name=value") of `option`'s transform on `arch`, best
  // evidence first; empty when the KB has none.
  virtual std::vector<std::string> parameter_ranking(const std::string &option, const std::string &arch) const {
    (void)option, (void)arch;
    return {};
  }
  // Folds one evaluated parameter setting of `option` into the evidence.
  virtual Status record_parameters(const std::string &option, const std::string &arch,
                                   const std::map<std::string, std::string> &params, const Attempt &attempt) {
    (void)option, (void)arch, (void)params, (void)attempt;
    return Status::ok();
  }
  // The whole policy as JSON (what the textual gradient reads and patches).
  virtual nlohmann::json document() const = 0;
  // Applies an RFC 6902 JSON patch; the result must satisfy the KB schema,
  // else nothing changes and the Error says why.
  virtual Status apply_patch(const nlohmann::json &patch) = 0;
};

// In-memory policy over the document layout described in docs/optimize.md.
class JsonPolicy : public Policy {
public:
  // Error when `doc` does not follow the layout.
  static Expected<JsonPolicy> from_json(const nlohmann::json &doc);
  std::vector<State> states() const override;
  std::optional<std::pair<std::string, double>> nearest_state(const Metrics &metrics) const override;
  std::vector<Option> all_options(const std::string &state, const std::string &arch) const override;
  Status add_state(const State &state, const std::string &like) override;
  std::vector<Option> options(const std::string &state, const std::string &arch) const override;
  Status record(const std::string &state, const std::string &option, const std::string &arch,
                const Attempt &attempt) override;
  nlohmann::json document() const override { return doc_; }
  Status apply_patch(const nlohmann::json &patch) override;

private:
  nlohmann::json doc_;
};

// Checks that an RFC 6902 patch never touches measured statistics ("stats",
// "summary"): evidence only changes through recorded attempts.
Status check_patch_paths(const nlohmann::json &patch);

// Checks `doc` against the policy layout; Error names the first bad field.
Status check_policy_document(const nlohmann::json &doc);

nlohmann::json stats_to_json(const OptionStats &s);
OptionStats stats_from_json(const nlohmann::json &j);

} // namespace kbcc::agent
