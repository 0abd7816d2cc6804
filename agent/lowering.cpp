#include "agent/lowering.h"

#include "agent/transforms.h"

namespace kbcc::agent {

bool MechanicalLowerer::can_lower(const Option &option) const {
  return !option.mechanical.empty() && find_transform(option.mechanical) != nullptr;
}

Expected<Lowered> MechanicalLowerer::lower(const LoweringRequest &r) {
  const Transform *t = find_transform(r.option.mechanical);
  if (!t) return make_error("no mechanical transform '" + r.option.mechanical + "'", "not-applicable");
  TransformContext ctx;
  ctx.launches = r.task->launches;
  ctx.metrics = r.metrics;
  auto src = t->apply(r.start->source, ctx);
  if (!src) return src.error();
  Lowered out;
  out.candidate.source = *src;
  out.candidate.optimizations = r.start->optimizations;
  out.candidate.optimizations.push_back(r.option.id);
  out.candidate.lowering = t->id;
  return out;
}

Expected<Lowered> MechanicalLowerer::fix(const LoweringRequest &, const Candidate &, const std::string &) {
  return make_error("mechanical transforms are not repaired", "cannot-fix");
}

bool CombinedLowerer::can_lower(const Option &option) const {
  return mech_.can_lower(option) || (llm_ && llm_->can_lower(option));
}

Expected<Lowered> CombinedLowerer::lower(const LoweringRequest &r) {
  if (mech_.can_lower(r.option)) {
    auto m = mech_.lower(r);
    if (m || !llm_ || m.error().code != "not-applicable") return m;
  }
  if (!llm_) return make_error("no LLM configured for '" + r.option.id + "'", "not-applicable");
  return llm_->lower(r);
}

Expected<Lowered> CombinedLowerer::fix(const LoweringRequest &r, const Candidate &failed, const std::string &feedback) {
  if (failed.lowering.rfind("llm:", 0) != 0 || !llm_) return mech_.fix(r, failed, feedback);
  return llm_->fix(r, failed, feedback);
}

} // namespace kbcc::agent
