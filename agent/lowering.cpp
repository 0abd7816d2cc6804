#include "agent/lowering.h"

#include "agent/transforms.h"

namespace kbcc::agent {

TransformContext transform_context(const KernelTask &task, const Metrics &metrics, const std::string &transform,
                                   int trajectory) {
  TransformContext ctx;
  ctx.launches = task.launches;
  ctx.metrics = metrics;
  size_t i = static_cast<size_t>(trajectory < 0 ? 0 : trajectory);
  if (transform == "unroll") {
    static const int factors[] = {4, 8, 2, 16};
    ctx.params["factor"] = std::to_string(factors[i % 4]);
  } else if (transform == "launch_bounds") {
    static const int min_blocks[] = {0, 2, 4};
    if (min_blocks[i % 3] > 0) ctx.params["min_blocks"] = std::to_string(min_blocks[i % 3]);
  } else if (transform == "maxnreg") {
    auto regs = metrics.find("registers_per_thread");
    static const double fractions[] = {0.75, 0.625, 0.5};
    if (regs != metrics.end()) {
      int cap = static_cast<int>(regs->second * fractions[i % 3]) / 8 * 8;
      if (cap >= 32) ctx.params["registers"] = std::to_string(cap);
    }
  }
  return ctx;
}

bool MechanicalLowerer::can_lower(const Option &option) const {
  return !option.mechanical.empty() && find_transform(option.mechanical) != nullptr;
}

Expected<Lowered> MechanicalLowerer::lower(const LoweringRequest &r) {
  const Transform *t = find_transform(r.option.mechanical);
  if (!t) return make_error("no mechanical transform '" + r.option.mechanical + "'", "not-applicable");
  TransformContext ctx = transform_context(*r.task, r.metrics, r.option.mechanical, r.trajectory);
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
