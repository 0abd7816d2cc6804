#include "tooling/launch_plan.h"

#include "launch/adapter.h"
#include "support/fs.h"
#include "tooling/kernel_text.h"

#include <map>
#include <string_view>
#include <tuple>

namespace kbcc::tooling {
namespace {

// A kernel's name without template arguments ("k" for "k<float, 4>").
std::string template_name(const std::string &name) { return name.substr(0, name.find('<')); }

} // namespace

std::vector<launch::ParamInfo> launch_params(const std::vector<Param> &params) {
  std::vector<launch::ParamInfo> out;
  for (const Param &p : params) {
    launch::ParamInfo i{p.name, launch::ParamInfo::Kind::Other, static_cast<unsigned>(p.size)};
    if (p.is_pointer) i.kind = launch::ParamInfo::Kind::Pointer;
    if (p.is_integer) i.kind = p.is_signed ? launch::ParamInfo::Kind::Signed : launch::ParamInfo::Kind::Unsigned;
    out.push_back(i);
  }
  return out;
}

namespace {

// How a qualified name writes an anonymous namespace.
constexpr std::string_view kAnonymous = "(anonymous namespace)::";

// One launch-changing variant of a kernel, ready to insert.
struct Planned {
  int arch = 0;
  std::string arch_name, label, nspace, kernel, source;
  launch::LaunchMapping mapping;
  bool in_anonymous = false; // the kernel is declared in an anonymous namespace
};

// `source` with its kernel renamed to `renamed` and a leading extern "C" of
// the kernel's declaration dropped (the variant lives in an unnamed
// namespace); an explicit specialization of a template instance loses its
// "template <>" and template arguments, and becomes a plain kernel. Error
// when its first kernel is not called `name`.
Expected<std::string> renamed_source(const std::string &source, const std::string &name, const std::string &renamed) {
  auto k = parse_kernel_text(source);
  if (!k) return k.error();
  if (k->name != name)
    return make_error("variant kernel is named " + k->name + ", not " + name, "variant-name-mismatch");
  std::string out = source;
  out.replace(k->name_pos, k->name_end - k->name_pos, renamed);
  if (is_explicit_specialization(out)) {
    size_t close = mask_code(out).find('>');
    out.erase(0, close + 1);
    k = parse_kernel_text(out);
    if (!k) return k.error();
  }
  std::string masked = mask_code(out);
  size_t decl = masked.find_last_of(";}", k->global_pos);
  decl = decl == std::string::npos ? 0 : decl + 1;
  size_t ext = masked.find("extern", decl);
  if (ext != std::string::npos && ext < k->global_pos) {
    size_t quote = out.find("\"C\"", ext);
    if (quote != std::string::npos && quote < k->global_pos) out.erase(ext, quote + 3 - ext);
  }
  return out;
}

// The variant's definition, private to the unit: in an unnamed namespace,
// unless the kernel's own is one (nvcc's host stub of a kernel in an
// unnamed namespace nested in another names both alike and does not compile).
std::string variant_block(const Planned &p) {
  std::string open = p.in_anonymous ? "" : "namespace {\n", close = p.in_anonymous ? "" : "}\n";
  return "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == " + std::to_string(p.arch) + "\n" + open + "namespace " +
         p.nspace + " {\n" + variant_text(p.label, p.source) + "}\n" + close + "#endif\n";
}

std::string site_text(const LaunchSite &s, const std::string &adapter) {
  if (s.form == kLaunchChevron) return adapter + "(";
  if (s.form == kLaunchKernel) return adapter + "::launch_kernel";
  if (s.form == kLaunchKernelEx) return adapter + "::launch_ex";
  return adapter + "::launch_ex_c";
}

// Plans one kernel (every arch of one definition); false when nothing of it
// can be used (the reason is in `why`).
bool plan_kernel(const Kernel &k, const std::vector<Planned> &variants, LaunchPlan &plan, std::string &why) {
  std::vector<Replacement> sites;
  std::vector<std::string> kept;
  unsigned rewritten = 0;
  std::string adapter = adapter_name(k);
  for (const LaunchSite &s : k.launches) {
    if (!s.not_rewritable.empty()) {
      kept.push_back(s.not_rewritable);
      continue;
    }
    ++rewritten;
    sites.push_back({s.edit_begin, s.edit_end, site_text(s, adapter)});
    if (s.form == kLaunchChevron) sites.push_back({s.close_begin, s.close_end, ")"});
  }
  if (sites.empty()) {
    why = "no-rewritable-launch-site";
    return false;
  }
  launch::AdapterSpec spec;
  auto [prefix, name] = split_qualified(k.qualified_name);
  spec.name = adapter.substr(split_qualified(adapter).first.size());
  spec.kernel_ref = name;
  spec.kernel_hash = k.hash;
  spec.display = k.qualified_name;
  spec.params = launch_params(k.params);
  std::string text;
  for (const Planned &p : variants) {
    spec.variants.push_back({p.arch, p.nspace + "::" + p.kernel, p.mapping});
    text += variant_block(p);
  }
  auto def = launch::adapter_definition(spec);
  if (!def) {
    why = "bad-mapping";
    return false;
  }
  text += "#line 1 \"" + adapter_line_name(variants.front().label) + "\"\nextern \"C++\" {\n" + *def + "}\n";
  plan.edits.insertions.push_back({k.end, text});
  plan.edits.replacements.insert(plan.edits.replacements.end(), sites.begin(), sites.end());
  plan.sites_kept.insert(plan.sites_kept.end(), kept.begin(), kept.end());
  plan.sites_rewritten += rewritten;
  plan.kernels.push_back(k.qualified_name);
  return true;
}

} // namespace

std::string adapter_line_name(const std::string &variant_name) { return variant_name + "-adapter"; }

std::string adapter_name(const Kernel &kernel) {
  auto [prefix, name] = split_qualified(kernel.qualified_name);
  // An anonymous namespace has no name to write: its members are named
  // through the enclosing one, as the launch sites name the kernel.
  for (size_t at = prefix.find(kAnonymous); at != std::string::npos; at = prefix.find(kAnonymous))
    prefix.erase(at, kAnonymous.size());
  std::string instance = kernel.is_template ? "_" + kernel.hash.substr(0, 8) : ""; // one per instantiation
  return "::" + prefix + "__kbcc_launch_" + template_name(name) + "_" + std::to_string(kernel.begin) + instance;
}

LaunchPlan plan_launch_variants(const std::string &path, const std::vector<Extraction> &per_arch,
                                const std::vector<VariantChoice> &choices) {
  LaunchPlan plan;
  std::string unit = real_path(path);
  // By definition, and by instance for a template's instantiations.
  std::map<std::tuple<uint64_t, uint64_t, std::string>, std::pair<const Kernel *, std::vector<Planned>>> by_range;
  for (const VariantChoice &c : choices) {
    if (!c.launch) continue;
    const Extraction *x = nullptr;
    const Kernel *k = find_kernel(per_arch, c, &x);
    std::string why = variant_refusal(k, unit);
    if (why.empty()) why = k->not_adaptable;
    int arch = cuda_arch_number(c.arch);
    if (why.empty() && arch <= 0) why = "bad-arch";
    if (why.empty() && k->is_template && !is_explicit_specialization(c.source))
      why = "template-variant-not-specialized";
    Planned p{arch, c.arch, c.name, "", "", "", *c.launch};
    if (why.empty()) {
      auto [prefix, name] = split_qualified(k->qualified_name);
      p.kernel = launch::variant_kernel_name(template_name(name), c.arch);
      p.nspace = "__kbcc_" + c.arch + "_" + c.name.substr(c.name.size() > 8 ? c.name.size() - 8 : 0);
      p.in_anonymous = prefix.find(kAnonymous) != std::string::npos;
      auto src = renamed_source(c.source, template_name(name), p.kernel);
      if (!src)
        why = src.error().code.empty() ? "bad-variant-source" : src.error().code;
      else
        p.source = *src;
    }
    if (!why.empty()) {
      plan.skipped.push_back(why);
      continue;
    }
    auto &slot = by_range[{k->begin, k->end, k->is_template ? k->hash : ""}];
    if (!slot.first) slot.first = k;
    slot.second.push_back(std::move(p));
  }
  for (auto &[range, group] : by_range) {
    std::string why;
    if (!plan_kernel(*group.first, group.second, plan, why))
      plan.skipped.insert(plan.skipped.end(), group.second.size(), why);
  }
  if (!plan.kernels.empty()) plan.edits.insertions.push_back({0, launch::runtime_preamble()});
  return plan;
}

} // namespace kbcc::tooling
