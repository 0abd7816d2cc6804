// agent::Policy over the persistent KB (kb/policy.h): reads candidates and
// evidence from a kb::Policy, and writes every attempt and accepted KB edit
// both to it and, when a store is given, to the LMDB policy table in one
// read-modify-write transaction (concurrent optimizers never lose evidence).
#pragma once
#include "agent/policy.h"
#include "kb/policy.h"

namespace kbcc::agent {

class KbPolicy : public Policy {
public:
  // `store` may be null (in-memory only, for tests); `contributor` names the
  // evidence's owner (kb::PolicyStore::contributor()).
  KbPolicy(kb::Policy policy, kb::PolicyStore *store, std::string contributor);

  std::vector<State> states() const override;
  std::optional<std::pair<std::string, double>> nearest_state(const Metrics &metrics) const override;
  Status add_state(const State &state, const std::string &like) override;
  std::vector<Option> options(const std::string &state, const std::string &arch) const override;
  std::vector<Option> all_options(const std::string &state, const std::string &arch) const override;
  Status record(const std::string &state, const std::string &option, const std::string &arch,
                const Attempt &attempt) override;
  // Values with validated evidence on `arch` (else on any arch), by the
  // geometric mean of their speedups, best first.
  std::vector<std::string> parameter_ranking(const std::string &option, const std::string &arch) const override;
  Status record_parameters(const std::string &option, const std::string &arch,
                           const std::map<std::string, std::string> &params, const Attempt &attempt) override;
  nlohmann::json document() const override;
  Status apply_patch(const nlohmann::json &patch) override;

  const kb::Policy &policy() const { return policy_; }

private:
  Option to_option(const kb::Optimization &o, const std::string &state, const std::string &arch) const;
  kb::Policy policy_;
  kb::PolicyStore *store_;
  std::string contributor_;
};

// The KB bottleneck (kb.schema.json enum) for classify_bottleneck()'s names.
std::string kb_bottleneck(const std::string &classified);

} // namespace kbcc::agent
