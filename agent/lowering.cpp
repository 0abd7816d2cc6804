#include "agent/lowering.h"

#include "agent/gpu_evaluator.h"
#include "agent/unit_source.h"
#include "cache/variant.h"
#include "support/fs.h"
#include "support/hash.h"
#include "tooling/host_compiler.h"
#include "tooling/kernel_text.h"
#include "transform/specialize.h"

#include <algorithm>
#include <regex>
#include <set>

namespace kbcc::agent {
namespace {

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
  c.source = o.launch ? fit_launch_bounds(o.source, o.launch->block) : o.source;
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
  c.numerics =
      cache::numerics_looseness(o.numerics) > cache::numerics_looseness(start.numerics) ? o.numerics : start.numerics;
  c.reduction_length = start.reduction_length;
  if (!o.reduction_length.empty())
    c.reduction_length =
        c.reduction_length.empty() ? o.reduction_length : "max(" + c.reduction_length + ", " + o.reduction_length + ")";
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

std::string fit_launch_bounds(const std::string &source, const std::array<std::string, 3> &block) {
  auto k = tooling::parse_kernel_text(source);
  if (!k || !k->has_launch_bounds) return source;
  static const std::regex bounds("__launch_bounds__\\s*\\(([^()]*)\\)\\s*");
  std::smatch m;
  std::string head = source.substr(0, k->name_pos);
  if (!std::regex_search(head, m, bounds)) return source;
  long threads = 1;
  for (const std::string &d : block) {
    char *end = nullptr;
    long v = std::strtol(d.c_str(), &end, 10);
    if (d.empty() || *end || v <= 0)
      return head.substr(0, m.position(0)) + head.substr(m.position(0) + m.length(0)) + source.substr(k->name_pos);
    threads *= v;
  }
  long declared = std::strtol(m[1].str().c_str(), nullptr, 10);
  if (declared >= threads) return source;
  return head.substr(0, m.position(0)) + "__launch_bounds__(" + std::to_string(threads) + ") " +
         head.substr(m.position(0) + m.length(0)) + source.substr(k->name_pos);
}

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
  std::stable_sort(all.begin(), all.end(),
                   [&](const auto &a, const auto &b) { return rank_of(a, ranked) < rank_of(b, ranked); });
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

Expected<std::shared_ptr<transform::KernelAst>> MechanicalLowerer::parsed(const KernelTask &original,
                                                                          const std::string &source) {
  KernelTask task = original;
  if (store_ && !file_exists(task.tu_path))
    if (auto located = materialize_unit(task, store_, dir_)) task = at_unit(task, *located);
  auto unit = substituted_unit(task, source);
  if (!unit) return make_error(unit.error().message, "not-applicable");
  std::string key = hash_hex(task.tu_path + '\0' + task.kernel.qualified_name + '\0' + *unit); // one per instance
  for (const auto &[k, ast] : parses_)
    if (k == key) return ast;
  std::string name = tooling::split_qualified(task.kernel.qualified_name).second; // "k<float>"
  if (task.kernel.is_template && !tooling::is_explicit_specialization(source)) {
    // The analyses read one instance: its explicit specialization, derived
    // from the template as `source` writes it, after the template.
    auto spec = transform::specialize_kernel(parse_request(task), *unit, name);
    if (!spec) return spec.error();
    unit = substituted_unit(task, spec->text);
    if (!unit) return make_error(unit.error().message, "not-applicable");
  }
  auto ast = transform::parse_kernel(parse_request(task), *unit, name);
  if (!ast) return make_error(ast.error().message, "not-applicable");
  if (parses_.size() >= 4) parses_.erase(parses_.begin());
  parses_.emplace_back(key, std::make_shared<transform::KernelAst>(std::move(*ast)));
  return parses_.back().second;
}

std::optional<bool> MechanicalLowerer::applies(const Option &option, const KernelTask &task, const Candidate &start) {
  const transform::Transform *t = transform::find_transform(option.mechanical);
  if (!t || !t->needs_ast) return std::nullopt;
  std::string key = option.mechanical + '/' + task.kernel.hash + '/' + hash_hex(start.source);
  if (auto it = applies_.find(key); it != applies_.end()) return it->second;
  auto ast = parsed(task, start.source);
  bool ok = false;
  if (ast) {
    transform::Input in{(*ast)->source(), ast->get(), current_launches(task, start), {}, task.arguments};
    ok = static_cast<bool>(transform::offer(*t, in));
  }
  applies_[key] = ok;
  return ok;
}

Expected<Lowered> MechanicalLowerer::lower(const LoweringRequest &r) {
  const transform::Transform *t = transform::find_transform(r.option.mechanical);
  if (!t) return make_error("no mechanical transform '" + r.option.mechanical + "'", "not-applicable");
  std::shared_ptr<transform::KernelAst> ast;
  if (t->needs_ast) {
    auto p = parsed(*r.task, r.start->source);
    if (!p) return p.error();
    ast = *p;
  }
  transform::Input in{ast ? ast->source() : r.start->source, ast.get(), current_launches(*r.task, *r.start), r.metrics,
                      r.task->arguments};
  auto offered = transform::offer(*t, in);
  if (!offered) return offered.error();
  Lowered out;
  std::optional<Error> first;
  // Settings that write the same kernel with the same launch (a parameter
  // another one overrides) count once; the budget goes to further settings
  // in ranked order.
  std::set<std::string> written, tried;
  auto lower_setting = [&](const transform::Params &p) {
    std::string setting = nlohmann::json(p).dump();
    if (!tried.insert(setting).second) return;
    auto o = transform::apply_offer(*t, *offered, p);
    auto c = o ? followed_by(*r.start, *o, t->id, r.option.id, p) : Expected<Candidate>(o.error());
    if (!c) {
      if (!first) first = c.error();
      return;
    }
    std::string key = c->source + '\0' + (c->launch ? launch::to_json(*c->launch).dump() : "");
    if (written.insert(key).second) out.candidates.push_back(std::move(*c));
  };
  for (const transform::Params &p : search_order(offered->axes, r.ranked_parameters, r.budget, r.trajectory))
    lower_setting(p);
  int budget = std::max(1, r.budget);
  if (static_cast<int>(out.candidates.size()) < budget && written.size() < tried.size())
    for (const transform::Params &p : search_order(offered->axes, r.ranked_parameters, INT_MAX, r.trajectory)) {
      if (static_cast<int>(out.candidates.size()) >= budget) break;
      lower_setting(p);
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

std::optional<bool> CombinedLowerer::applies(const Option &option, const KernelTask &task, const Candidate &start) {
  if (!mech_.can_lower(option)) return std::nullopt;
  auto a = mech_.applies(option, task, start);
  // An option the transform refuses may still go to the LLM.
  if (a && !*a && llm_ && llm_->can_lower(option)) return std::nullopt;
  return a;
}

Expected<Lowered> CombinedLowerer::fix(const LoweringRequest &r, const Candidate &failed, const std::string &feedback) {
  if (failed.lowering.rfind("llm:", 0) != 0 || !llm_) return mech_.fix(r, failed, feedback);
  return llm_->fix(r, failed, feedback);
}

} // namespace kbcc::agent
