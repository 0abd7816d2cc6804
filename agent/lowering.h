// Lowering: turns (kernel, state, chosen optimization) into a candidate
// kernel definition. Mechanical transforms need no LLM; the LLM lowerer
// (agent/llm_lowering.h) handles techniques no transform implements and can
// repair its own candidates from compiler and validation feedback.
#pragma once
#include "agent/policy.h"
#include "agent/types.h"
#include "cache/env.h"
#include "support/expected.h"
#include "tooling/request.h"
#include "transform/transform.h"

#include <array>
#include <map>
#include <memory>
#include <optional>

namespace kbcc::agent {

// Tokens and cost spent by LLM calls.
struct Usage {
  long input_tokens = 0;
  long output_tokens = 0;
  double cost = 0;
  int requests = 0;
  Usage &operator+=(const Usage &o) {
    input_tokens += o.input_tokens;
    output_tokens += o.output_tokens;
    cost += o.cost;
    requests += o.requests;
    return *this;
  }
  long tokens() const { return input_tokens + output_tokens; }
};

struct LoweringRequest {
  const KernelTask *task = nullptr;
  const Candidate *start = nullptr; // the current best of the trajectory
  State state;
  Metrics metrics;    // profile of `start`
  Option option;      // the chosen optimization
  int trajectory = 0; // which trajectory asks (the search starts elsewhere in each)
  int budget = 8;     // candidates a mechanical lowering may return (parameter settings)
  // Parameter settings ranked by the KB's evidence for (state, option, arch),
  // best first, as "name=value" strings (see Policy::parameter_ranking).
  std::vector<std::string> ranked_parameters;
};

struct Lowered {
  std::vector<Candidate> candidates; // one per parameter setting (one for an LLM)
  Usage usage;
};

class Lowerer {
public:
  virtual ~Lowerer() = default;
  // Whether this lowerer can attempt `option` at all.
  virtual bool can_lower(const Option &option) const = 0;
  // A candidate; Error code "not-applicable" when the option does not apply
  // to this kernel (no KB evidence is recorded for that).
  virtual Expected<Lowered> lower(const LoweringRequest &request) = 0;
  // A repaired candidate given compiler/validation/static-check feedback;
  // Error code "cannot-fix" when this lowerer does not repair.
  virtual Expected<Lowered> fix(const LoweringRequest &request, const Candidate &failed,
                                const std::string &feedback) = 0;
  // Everything this lowerer has spent so far, failed requests included.
  virtual Usage spent() const { return {}; }
  // Whether `option` applies to `start` by a legality analysis that needs
  // no GPU: true or false for a structural mechanical transform (its
  // analysis on the Clang AST), nullopt when nothing is known beforehand.
  virtual std::optional<bool> applies(const Option &option, const KernelTask &task, const Candidate &start) {
    (void)option, (void)task, (void)start;
    return std::nullopt;
  }
};

// `source` with its __launch_bounds__ fitted to launches of `block` (a
// launch mapping's block): a bound below the block's threads would make
// every launch fail, so it becomes the block's size when the block is a
// number, and is removed when it is an expression.
std::string fit_launch_bounds(const std::string &source, const std::array<std::string, 3> &block);

// How the unit of `task` is parsed for transforms (its compile's flags).
tooling::ParseRequest parse_request(const KernelTask &task);

// The parameter settings a step tries, at most `budget`: every setting when
// the space is that small, else the KB's best-ranked values first and the
// rest sampled from `trajectory` on, so trajectories explore different parts.
std::vector<transform::Params> search_order(const std::vector<transform::Axis> &axes,
                                            const std::vector<std::string> &ranked, int budget, int trajectory);

// Applies the option's mechanical transform (transform/transform.h) with the
// parameter settings of search_order(), composing launch mappings and
// numerics classes with the start candidate's.
class MechanicalLowerer : public Lowerer {
public:
  bool can_lower(const Option &option) const override;
  Expected<Lowered> lower(const LoweringRequest &request) override;
  Expected<Lowered> fix(const LoweringRequest &, const Candidate &, const std::string &) override;
  std::optional<bool> applies(const Option &option, const KernelTask &task, const Candidate &start) override;
  // A unit whose checkout is gone is parsed from its closure in `store`,
  // written under `dir` (agent/unit_source.h); without this, such a kernel
  // gets no structural transform.
  void use_closures(cache::Env *store, const std::string &dir) {
    store_ = store;
    dir_ = dir;
  }

private:
  // The unit of `task` with `source` in place of the kernel, parsed; the
  // last few parses are kept (a trajectory asks about one start many times).
  // A template's instance is parsed as its explicit specialization (derived
  // from `source` when that is still the template's text).
  Expected<std::shared_ptr<transform::KernelAst>> parsed(const KernelTask &task, const std::string &source);
  std::vector<std::pair<std::string, std::shared_ptr<transform::KernelAst>>> parses_; // newest last
  std::map<std::string, bool> applies_; // transform + kernel + source hash
  cache::Env *store_ = nullptr;
  std::string dir_;
};

// Mechanical when the option has an applicable transform, else `llm` (may be null).
class CombinedLowerer : public Lowerer {
public:
  CombinedLowerer(Lowerer *llm) : llm_(llm) {}
  bool can_lower(const Option &option) const override;
  Expected<Lowered> lower(const LoweringRequest &request) override;
  Expected<Lowered> fix(const LoweringRequest &request, const Candidate &failed, const std::string &feedback) override;
  Usage spent() const override { return llm_ ? llm_->spent() : Usage{}; }
  std::optional<bool> applies(const Option &option, const KernelTask &task, const Candidate &start) override;
  MechanicalLowerer &mechanical() { return mech_; }

private:
  MechanicalLowerer mech_;
  Lowerer *llm_;
};

} // namespace kbcc::agent
