#include "tooling/substitutions.h"

#include "support/fs.h"
#include "tooling/kernel_text.h"

#include <map>

namespace kbcc::tooling {
namespace {

using RangeKey = std::pair<uint64_t, uint64_t>;

} // namespace

const Kernel *find_kernel(const std::vector<Extraction> &per_arch, const VariantChoice &c, const Extraction **in) {
  for (const Extraction &x : per_arch) {
    if (x.arch != c.arch) continue;
    for (const Kernel &k : x.kernels)
      if (k.hash == c.kernel_hash) {
        *in = &x;
        return &k;
      }
  }
  return nullptr;
}

namespace {

// Every instantiation sharing a template's text must get the same variant
// for that arch, or the template keeps its original text there.
bool all_instantiations_agree(const Extraction &x, RangeKey range, const std::string &source,
                              const std::vector<VariantChoice> &choices) {
  for (const Kernel &k : x.kernels) {
    if (k.begin != range.first || k.end != range.second) continue;
    bool agreed = false;
    for (const VariantChoice &c : choices)
      if (c.arch == x.arch && c.kernel_hash == k.hash && c.source == source) agreed = true;
    if (!agreed) return false;
  }
  return true;
}

} // namespace

std::string variant_refusal(const Kernel *k, const std::string &path) {
  if (!k) return "kernel-not-in-unit";
  if (!k->not_optimizable.empty()) return k->not_optimizable;
  if (!k->in_main_file || real_path(k->file) != path) return "kernel-in-header";
  return {};
}

std::vector<Substitution> plan_substitutions(const std::string &path, const std::vector<Extraction> &per_arch,
                                             const std::vector<VariantChoice> &choices,
                                             std::vector<std::string> *skipped) {
  std::string unit = real_path(path);
  std::map<RangeKey, std::map<int, ArchVariant>> by_range;
  std::map<std::pair<uint64_t, std::string>, std::map<int, ArchVariant>> by_instance; // (template end, hash)
  auto skip = [&](const std::string &reason) {
    if (skipped) skipped->push_back(reason);
  };
  for (const VariantChoice &c : choices) {
    if (c.launch) continue;
    const Extraction *x = nullptr;
    const Kernel *k = find_kernel(per_arch, c, &x);
    int arch = cuda_arch_number(c.arch);
    if (std::string why = variant_refusal(k, unit); !why.empty()) {
      skip(why);
      continue;
    }
    RangeKey range{k->begin, k->end};
    if (arch <= 0) {
      skip("bad-arch");
      continue;
    }
    if (k->is_template && is_explicit_specialization(c.source)) {
      by_instance[{k->end, k->hash}][arch] = {arch, c.name, c.source};
      continue;
    }
    if (k->is_template && !all_instantiations_agree(*x, range, c.source, choices)) {
      skip("template-instantiations-disagree");
      continue;
    }
    by_range[range][arch] = {arch, c.name, c.source};
  }
  std::vector<Substitution> subs;
  for (auto &[range, archs] : by_range) {
    Substitution s{range.first, range.second, {}};
    for (auto &[arch, v] : archs)
      s.variants.push_back(v);
    subs.push_back(std::move(s));
  }
  for (auto &[key, archs] : by_instance) {
    Substitution s{key.first, key.first, {}, true};
    for (auto &[arch, v] : archs)
      s.variants.push_back(v);
    subs.push_back(std::move(s));
  }
  return subs;
}

} // namespace kbcc::tooling
