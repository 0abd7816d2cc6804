#include "agent/work_check.h"

#include "tooling/kernel_text.h"

#include <regex>
#include <set>

namespace kbcc::agent {
using tooling::find_loops;
using tooling::has_identifier;
using tooling::KernelText;
using tooling::Loop;
using tooling::mask_code;
using tooling::param_name;
using tooling::param_signature;
using tooling::parse_kernel_text;
using tooling::split_params;
namespace {

std::string body_of(const std::string &src, const KernelText &k) {
  return mask_code(src).substr(k.body_open, k.body_close - k.body_open + 1);
}

// Anything other than reading an element (passing it on, arithmetic,
// taking a copy, taking an element's address) might write through the
// pointer elsewhere.
bool may_write_through(const std::string &body, const std::string &name) {
  if (writes_through(body, name)) return true;
  std::regex use("\\b" + name + "\\b(?!\\s*\\[)"), address("&\\s*\\(?\\s*" + name + "\\s*\\[");
  return std::regex_search(body, use) || std::regex_search(body, address);
}

bool loop_uses(const Loop &l, const std::string &name) { return has_identifier(l.header, name); }

// The names the grid of `launch` reads (empty without a mapping, or when one
// does not parse).
std::set<std::string> grid_names(const std::optional<launch::LaunchMapping> &launch) {
  std::set<std::string> values, pointers;
  if (!launch) return values;
  for (const std::string &g : launch->grid)
    if (auto e = launch::parse_expr(g)) launch::collect_names(**e, values, pointers);
  // A loop whose trip count a precondition bounds by the block
  // (`n <= 4 * block.x`) may become a fixed number of guarded steps.
  for (const std::string &p : launch->preconditions)
    if (p.find("<=") != std::string::npos && p.find("block.") != std::string::npos)
      if (auto e = launch::parse_expr(p)) launch::collect_names(**e, values, pointers);
  return values;
}

} // namespace

bool writes_through(const std::string &src, const std::string &name) {
  const std::string n = "\\b" + name + "\\b";
  const std::string assign = "\\s*([-+*/%&|^]|<<|>>)?=(?!=)";
  std::regex indexed(n + "\\s*\\[[^;]*?\\]" + assign);
  std::regex incdec(n + "\\s*\\[[^;]*?\\]\\s*(\\+\\+|--)|(\\+\\+|--)\\s*" + n + "\\s*\\[");
  std::regex deref("\\*\\s*\\(?\\s*" + n + "[^;=]*?\\)?" + assign);
  // atomics and the store intrinsics (__stcs, __stcg, __stwb, __stwt) write through their first argument
  std::regex atomic("\\b(atomic\\w*|__st(cs|cg|wb|wt))\\s*\\(\\s*&?\\s*\\(?\\s*" + n);
  std::string m = mask_code(src);
  return std::regex_search(m, indexed) || std::regex_search(m, incdec) || std::regex_search(m, deref) ||
         std::regex_search(m, atomic);
}

Status check_candidate(const std::string &original, const std::string &candidate,
                       const std::optional<launch::LaunchMapping> &launch) {
  auto ko = parse_kernel_text(original);
  if (!ko) return make_error("original kernel: " + ko.error().message, "kernel-text");
  auto kc = parse_kernel_text(candidate);
  if (!kc) return make_error("candidate: " + kc.error().message, "signature-changed");
  if (ko->name != kc->name)
    return make_error("candidate renames the kernel from " + ko->name + " to " + kc->name, "signature-changed");
  auto po = split_params(original, *ko), pc = split_params(candidate, *kc);
  if (po.size() != pc.size())
    return make_error("candidate has " + std::to_string(pc.size()) + " parameters, the kernel has " +
                          std::to_string(po.size()),
                      "signature-changed");
  // An explicit specialization of a template's instance writes the template's
  // parameters as their arguments; the compiler checks that it matches.
  bool instance = tooling::is_explicit_specialization(candidate) && !tooling::is_explicit_specialization(original);
  for (size_t i = 0; i < po.size() && !instance; ++i)
    if (param_signature(po[i]) != param_signature(pc[i]))
      return make_error("parameter " + std::to_string(i + 1) + " changed from '" + po[i] + "' to '" + pc[i] + "'",
                        "signature-changed");
  std::string bo = body_of(original, *ko), bc = body_of(candidate, *kc);
  for (size_t i = 0; i < po.size(); ++i) {
    std::string on = param_name(po[i]), cn = param_name(pc[i]);
    if (on.empty() || cn.empty()) continue;
    if (writes_through(bo, on) && !may_write_through(bc, cn))
      return make_error("candidate never writes output parameter '" + cn + "'", "removed-work");
  }
  std::vector<Loop> lo = find_loops(original, *ko), lc = find_loops(candidate, *kc);
  std::set<std::string> grid = grid_names(launch);
  for (size_t i = 0; i < po.size(); ++i) {
    std::string on = param_name(po[i]), cn = param_name(pc[i]);
    if (on.empty() || cn.empty() || grid.count(cn)) continue;
    bool orig_loop = std::any_of(lo.begin(), lo.end(), [&](const Loop &l) { return loop_uses(l, on); });
    bool cand_loop = std::any_of(lc.begin(), lc.end(), [&](const Loop &l) { return loop_uses(l, cn); });
    if (orig_loop && !cand_loop)
      return make_error("candidate drops the loop bounded by parameter '" + cn + "'", "removed-work");
  }
  return Status::ok();
}

} // namespace kbcc::agent
