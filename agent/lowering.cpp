#include "agent/lowering.h"

#include "agent/gpu_evaluator.h"
#include "cache/variant.h"
#include "tooling/host_compiler.h"

#include <algorithm>
#include <set>

namespace kbcc::agent {
namespace {

// exact < reassociates < approximate.
int looseness(const std::string &numerics) {
  if (numerics == cache::kNumericsApproximate) return 2;
  if (numerics == cache::kNumericsReassociates) return 1;
  return 0;
}

std::string unqualified(const std::string &name) {
  size_t at = name.rfind("::");
  return at == std::string::npos ? name : name.substr(at + 2);
}

// The launch of each capture as the start candidate runs it (launch fields
// only; mappings that need argument values are left out).
std::vector<launch::Launch> current_launches(const KernelTask &task, const Candidate &start) {
  if (!start.launch) return task.launches;
  struct NoParams : launch::Scope {
    std::optional<int64_t> value(const std::string &) const override { return std::nullopt; }
    std::optional<uint64_t> address(const std::string &) const override { return std::nullopt; }
  } none;
  launch::LaunchMapping shape = *start.launch;
  shape.preconditions.clear();
  std::vector<launch::Launch> out;
  for (const launch::Launch &l : task.launches)
    if (auto a = launch::apply_mapping(shape, l, none); a && a->ok) out.push_back(a->launch);
  return out;
}

// `start` followed by one transform's output.
Expected<Candidate> followed_by(const Candidate &start, const transform::Output &o, const std::string &transform,
                                const std::string &option, const transform::Params &params) {
  Candidate c;
  c.source = o.source;
  c.optimizations = start.optimizations;
  c.optimizations.push_back(option);
  c.lowering = transform;
  c.params = params;
  c.launch = start.launch;
  if (o.launch) {
    if (start.launch) {
      auto composed = launch::compose(*start.launch, *o.launch);
      if (!composed) return composed.error();
      c.launch = *composed;
    } else {
      c.launch = o.launch;
    }
  }
  c.numerics = looseness(o.numerics) > looseness(start.numerics) ? o.numerics : start.numerics;
  c.reduction_length = start.reduction_length;
  if (!o.reduction_length.empty())
    c.reduction_length = c.reduction_length.empty() ? o.reduction_length
                                                    : "max(" + c.reduction_length + ", " + o.reduction_length + ")";
  std::set<std::string> sizes(start.size_params.begin(), start.size_params.end());
  sizes.insert(o.size_params.begin(), o.size_params.end());
  c.size_params.assign(sizes.begin(), sizes.end());
  return c;
}

// Rank of a setting: the sum of its name=value pairs' positions in `ranked`
// (values without evidence rank last).
size_t rank_of(const transform::Params &p, const std::vector<std::string> &ranked) {
  size_t sum = 0;
  for (const auto &[k, v] : p)
    sum += static_cast<size_t>(std::find(ranked.begin(), ranked.end(), k + "=" + v) - ranked.begin());
  return sum;
}

} // namespace

tooling::ParseRequest parse_request(const KernelTask &task) {
  tooling::ParseRequest r;
  r.source = task.tu_path;
  r.arch = task.arch;
  r.working_dir = task.working_dir;
  r.flags.assign(task.compile_command.begin() + (task.compile_command.empty() ? 0 : 1), task.compile_command.end());
  std::string ccbin;
  for (size_t i = 0; i + 1 < r.flags.size(); ++i)
    if (r.flags[i] == "-ccbin" || r.flags[i] == "--compiler-bindir") ccbin = r.flags[i + 1];
  if (auto dirs = tooling::host_include_dirs(tooling::resolve_host_compiler(ccbin), ""); dirs)
    r.host_include_dirs = *dirs;
  return r;
}

std::vector<transform::Params> search_order(const std::vector<transform::Axis> &axes,
                                            const std::vector<std::string> &ranked, int budget, int trajectory) {
  std::vector<transform::Params> all = transform::configurations(axes);
  std::stable_sort(all.begin(), all.end(), [&](const auto &a, const auto &b) {
    return rank_of(a, ranked) < rank_of(b, ranked);
  });
  size_t n = static_cast<size_t>(std::max(1, budget));
  if (all.size() <= n) return all;
  // Half from the ranking, the rest spread evenly over the remaining
  // settings, starting where this trajectory's share begins.
  size_t head = n / 2 + n % 2, rest = all.size() - head, more = n - head;
  std::vector<transform::Params> out(all.begin(), all.begin() + static_cast<long>(head));
  size_t stride = std::max<size_t>(1, rest / std::max<size_t>(1, more));
  size_t start = (static_cast<size_t>(std::max(0, trajectory)) * more) % rest;
  for (size_t i = 0; i < more; ++i)
    out.push_back(all[head + (start + i * stride) % rest]);
  return out;
}

bool MechanicalLowerer::can_lower(const Option &option) const {
  return !option.mechanical.empty() && transform::find_transform(option.mechanical) != nullptr;
}

Expected<Lowered> MechanicalLowerer::lower(const LoweringRequest &r) {
  const transform::Transform *t = transform::find_transform(r.option.mechanical);
  if (!t) return make_error("no mechanical transform '" + r.option.mechanical + "'", "not-applicable");
  std::optional<transform::KernelAst> ast;
  if (t->needs_ast) {
    auto unit = substituted_unit(*r.task, r.start->source);
    if (!unit) return make_error(unit.error().message, "not-applicable");
    auto parsed = transform::parse_kernel(parse_request(*r.task), *unit, unqualified(r.task->kernel.qualified_name));
    if (!parsed) return make_error(parsed.error().message, "not-applicable");
    ast = std::move(*parsed);
  }
  transform::Input in{ast ? ast->source() : r.start->source, ast ? &*ast : nullptr,
                      current_launches(*r.task, *r.start), r.metrics};
  auto axes = t->space(in);
  if (!axes) return axes.error();
  Lowered out;
  std::optional<Error> first;
  for (const transform::Params &p : search_order(*axes, r.ranked_parameters, r.budget, r.trajectory)) {
    auto o = t->apply(in, p);
    auto c = o ? followed_by(*r.start, *o, t->id, r.option.id, p) : Expected<Candidate>(o.error());
    if (!c) {
      if (!first) first = c.error();
      continue;
    }
    out.candidates.push_back(std::move(*c));
  }
  if (out.candidates.empty()) return first ? *first : make_error("no parameter setting applies", "not-applicable");
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
