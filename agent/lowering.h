// Lowering: turns (kernel, state, chosen optimization) into a candidate
// kernel definition. Mechanical transforms need no LLM; the LLM lowerer
// (agent/llm_lowering.h) handles techniques no transform implements and can
// repair its own candidates from compiler and validation feedback.
#pragma once
#include "agent/policy.h"
#include "agent/transforms.h"
#include "agent/types.h"
#include "support/expected.h"

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
  int trajectory = 0; // which trajectory asks: mechanical transforms vary their parameters by it
};

struct Lowered {
  Candidate candidate;
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
};

// Parameters of a mechanical transform for one trajectory, so trajectories
// explore different settings: unroll factor 4, 8, 2, 16; launch_bounds
// minimum blocks none, 2, 4; maxnreg cap 3/4, 5/8, 1/2 of the registers.
TransformContext transform_context(const KernelTask &task, const Metrics &metrics, const std::string &transform,
                                   int trajectory);

// Applies the option's mechanical transform (agent/transforms.h).
class MechanicalLowerer : public Lowerer {
public:
  bool can_lower(const Option &option) const override;
  Expected<Lowered> lower(const LoweringRequest &request) override;
  Expected<Lowered> fix(const LoweringRequest &, const Candidate &, const std::string &) override;
};

// Mechanical when the option has an applicable transform, else `llm` (may be null).
class CombinedLowerer : public Lowerer {
public:
  CombinedLowerer(Lowerer *llm) : llm_(llm) {}
  bool can_lower(const Option &option) const override;
  Expected<Lowered> lower(const LoweringRequest &request) override;
  Expected<Lowered> fix(const LoweringRequest &request, const Candidate &failed, const std::string &feedback) override;
  Usage spent() const override { return llm_ ? llm_->spent() : Usage{}; }

private:
  MechanicalLowerer mech_;
  Lowerer *llm_;
};

} // namespace kbcc::agent
