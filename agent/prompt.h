// Prompts of the LLM lowering and the textual-gradient steps, and parsing of
// the code and JSON blocks in replies.
#pragma once
#include "agent/llm/client.h"
#include "agent/lowering.h"

#include <optional>

namespace kbcc::agent {

// System + user messages asking for the candidate of `request`: the kernel
// and its dependencies, arch and captured launch configurations, the state
// and its metrics, the optimization with the KB's insights, and the variant
// contract.
std::vector<llm::Message> lowering_prompt(const LoweringRequest &request);

// The conversation extended with the failed candidate (its code, and its
// launch mapping when it has one) and its feedback.
std::vector<llm::Message> fixer_prompt(const LoweringRequest &request, const Candidate &failed,
                                       const std::string &feedback);

// Contents of the first fenced block whose language is one of `languages`
// (an untagged block also counts); nullopt when there is none.
std::optional<std::string> fenced_block(const std::string &text, const std::vector<std::string> &languages);

} // namespace kbcc::agent
