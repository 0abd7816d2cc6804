#include "agent/gradient.h"

#include "agent/prompt.h"

#include <sstream>

namespace kbcc::agent {
namespace {

const char *kRole = "You maintain the knowledge base (KB) of a CUDA kernel optimizer. The KB maps performance "
                    "states to optimization techniques with expected speedups and insights; it steers which "
                    "technique is tried next on new kernels and GPU architectures.";

Expected<std::string> ask(llm::Client &client, Usage &usage, const std::string &prompt) {
  auto r = client.complete({{"system", kRole}, {"user", prompt}});
  if (!r) return r.error();
  usage += r->usage;
  return r->text;
}

// The KB document without bulky numeric evidence, so the prompt stays small.
std::string kb_excerpt(const nlohmann::json &doc) {
  std::string text = doc.dump(1);
  if (text.size() > 60000) text = text.substr(0, 60000) + "\n... (truncated)";
  return text;
}

} // namespace

std::string trajectory_table(const std::vector<TrajectoryRecord> &recent) {
  std::ostringstream s;
  s << "| kernel | arch | traj | step | state | optimization | lowering | predicted | measured | outcome | note |\n"
    << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto &t : recent)
    for (const auto &st : t.steps)
      s << "| " << t.kernel_name << " | " << t.arch << " | " << t.index << " | " << st.index << " | " << st.state
        << " | " << st.option << " | " << st.lowering << " | " << st.predicted << " | " << st.speedup << " | "
        << outcome_name(st.outcome) << " | " << st.error.substr(0, 120) << " |\n";
  return s.str();
}

Expected<GradientResult> textual_gradient(llm::Client &client, Policy &policy,
                                          const std::vector<TrajectoryRecord> &recent) {
  GradientResult g;
  std::string table = trajectory_table(recent);
  auto eval = ask(client, g.usage,
                  "Policy evaluation. Compare the measured speedups of these optimization attempts with what the KB "
                  "predicted. Summarize, per (state, optimization), where the prediction was right, too "
                  "optimistic or too pessimistic, and which attempts failed and why.\n\n" +
                      table);
  if (!eval) return eval.error();
  g.evaluation = *eval;
  auto gap = ask(client, g.usage,
                 "Performance-gap analysis. Given this evaluation, explain why the results differ from the "
                 "predictions: which assumptions about the states, bottlenecks or techniques were wrong, and "
                 "what the KB should say instead.\n\nEvaluation:\n" +
                     g.evaluation + "\n\nAttempts:\n" + table);
  if (!gap) return gap.error();
  g.analysis = *gap;
  auto edit = ask(client, g.usage,
                  "KB edit. Based on this analysis, write an RFC 6902 JSON patch against the KB document below: "
                  "revise a technique's description, expected speedup or insights, add a technique or a state. "
                  "Never remove or rewrite measured statistics. Reply with one ```json block holding the patch "
                  "array.\n\nAnalysis:\n" +
                      g.analysis + "\n\nKB document:\n```json\n" + kb_excerpt(policy.document()) + "\n```");
  if (!edit) return edit.error();
  auto block = fenced_block(*edit, {"json"});
  if (!block) {
    g.message = "KB edit reply has no ```json block";
    return g;
  }
  nlohmann::json patch;
  try {
    patch = nlohmann::json::parse(*block);
  } catch (const std::exception &e) {
    g.message = std::string("KB edit is not valid JSON: ") + e.what();
    return g;
  }
  Status st = policy.apply_patch(patch);
  g.applied = static_cast<bool>(st);
  if (!st) g.message = st.error().message;
  return g;
}

} // namespace kbcc::agent
