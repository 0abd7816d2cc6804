// Lowering with an LLM: any KB technique, with a bounded fixer loop driven by
// the loop (compile errors, validation failures and static-check findings
// are fed back through fix()).
#pragma once
#include "agent/llm/client.h"
#include "agent/lowering.h"

namespace kbcc::agent {

class LlmLowerer : public Lowerer {
public:
  explicit LlmLowerer(llm::Client &client) : client_(client) {}
  bool can_lower(const Option &) const override { return true; }
  // Error code "llm-reply" when the reply has no code block or a launch
  // mapping that does not check (launch/mapping.h); transport errors pass through.
  Expected<Lowered> lower(const LoweringRequest &request) override;
  Expected<Lowered> fix(const LoweringRequest &request, const Candidate &failed, const std::string &feedback) override;
  Usage spent() const override { return spent_; }

private:
  Usage spent_;
  // One request; the candidate's launch mapping, numerics class, reduction
  // length and size parameters are `base`'s unless the reply's ```json block
  // states them (a stated class never makes it less loose than `base`'s).
  Expected<Lowered> ask(const LoweringRequest &request, const std::vector<llm::Message> &messages,
                        const Candidate &base);
  llm::Client &client_;
};

// Reads the ```json block of a reply (launch mapping, numerics class,
// reduction length) into `c`, over what `c` holds; Error when it is malformed
// or names what the kernel does not have.
Status read_launch(const std::string &json_text, const KernelTask &task, Candidate &c);

} // namespace kbcc::agent
