#include "agent/llm_lowering.h"

#include "agent/prompt.h"
#include "cache/variant.h"
#include "tooling/launch_plan.h"

#include <nlohmann/json.hpp>

namespace kbcc::agent {

Expected<Lowered> LlmLowerer::ask(const LoweringRequest &r, const std::vector<llm::Message> &messages,
                                  const Candidate &base) {
  auto reply = client_.complete(messages);
  if (!reply) {
    spent_.requests += 1;
    return reply.error();
  }
  spent_ += reply->usage;
  auto code = fenced_block(reply->text, {"cuda", "cpp", "c++", "cu", "c"});
  if (!code || code->find("__global__") == std::string::npos)
    return make_error("LLM reply has no ```cuda block with the kernel", "llm-reply");
  Candidate c;
  c.source = *code;
  c.optimizations = r.start->optimizations;
  c.optimizations.push_back(r.option.id);
  c.lowering = "llm:" + client_.options().model;
  // What the reply does not restate carries over from the code it rewrote.
  c.launch = base.launch;
  c.numerics = base.numerics;
  c.reduction_length = base.reduction_length;
  c.size_params = base.size_params;
  if (auto mapping = fenced_block(reply->text, {"json"}))
    if (Status st = read_launch(*mapping, *r.task, c); !st)
      return make_error("LLM reply: " + st.error().message, "llm-reply");
  Lowered out;
  out.candidates.push_back(std::move(c));
  out.usage = reply->usage;
  return out;
}

Status read_launch(const std::string &text, const KernelTask &task, Candidate &c) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return make_error("the ```json block is not a JSON object", "llm-reply");
  if (j.contains("launch")) {
    auto m = launch::mapping_from_json(j["launch"], "the launch mapping");
    if (!m) return m.error();
    if (Status st = launch::check_mapping(*m, tooling::launch_params(task.kernel.params)); !st) return st;
    c.launch = *m;
  }
  std::string numerics = j.value("numerics", std::string(cache::kNumericsExact));
  if (numerics != cache::kNumericsExact && numerics != cache::kNumericsReassociates)
    return make_error("numerics must be \"exact\" or \"reassociates\", not \"" + numerics + "\"", "llm-reply");
  // A stated class never makes the code it rewrote less loose.
  if (c.numerics.empty() || cache::numerics_looseness(numerics) > cache::numerics_looseness(c.numerics))
    c.numerics = numerics;
  if (j.contains("reduction_length")) {
    if (!j["reduction_length"].is_string()) return make_error("reduction_length must be a string", "llm-reply");
    c.reduction_length = j["reduction_length"].get<std::string>();
    if (auto e = launch::parse_expr(c.reduction_length); !e) return e.error();
  }
  return Status::ok();
}

Expected<Lowered> LlmLowerer::lower(const LoweringRequest &r) { return ask(r, lowering_prompt(r), *r.start); }

Expected<Lowered> LlmLowerer::fix(const LoweringRequest &r, const Candidate &failed, const std::string &feedback) {
  return ask(r, fixer_prompt(r, failed, feedback), failed);
}

} // namespace kbcc::agent
