#include "agent/llm_lowering.h"

#include "agent/prompt.h"

namespace kbcc::agent {

Expected<Lowered> LlmLowerer::ask(const LoweringRequest &r, const std::vector<llm::Message> &messages) {
  auto reply = client_.complete(messages);
  if (!reply) {
    spent_.requests += 1;
    return reply.error();
  }
  spent_ += reply->usage;
  auto code = fenced_block(reply->text, {"cuda", "cpp", "c++", "cu", "c"});
  if (!code || code->find("__global__") == std::string::npos)
    return make_error("LLM reply has no ```cuda block with the kernel", "llm-reply");
  Lowered out;
  out.candidate.source = *code;
  out.candidate.optimizations = r.start->optimizations;
  out.candidate.optimizations.push_back(r.option.id);
  out.candidate.lowering = "llm:" + client_.options().model;
  out.usage = reply->usage;
  return out;
}

Expected<Lowered> LlmLowerer::lower(const LoweringRequest &r) { return ask(r, lowering_prompt(r)); }

Expected<Lowered> LlmLowerer::fix(const LoweringRequest &r, const Candidate &failed, const std::string &feedback) {
  return ask(r, fixer_prompt(r, failed.source, feedback));
}

} // namespace kbcc::agent
