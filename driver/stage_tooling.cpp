// Extractor and rewriter stages backed by tooling/: extraction runs in a
// forked child with the parse_timeout and its results are cached per unit in
// $KBCC_DIR/extract (direct mode).
#include "cache/stats.h"
#include "driver/stages.h"
#include "support/config.h"
#include "support/fs.h"
#include "support/log.h"
#include "tooling/extract.h"
#include "tooling/extract_cache.h"
#include "tooling/rewrite.h"
#include "tooling/toolchain.h"

#include <map>
#include <set>

namespace kbcc::driver {
namespace {

std::string nvcc_of(const CompileUnit &unit) {
  return unit.nvcc_argv.empty() ? std::string("/usr/local/cuda/bin/nvcc") : unit.nvcc_argv[0];
}

tooling::ParseRequest request_for(const CompileUnit &unit, const std::string &arch, const std::string &kbcc_dir) {
  tooling::ParseRequest r;
  r.source = unit.source_abs.empty() ? unit.source : unit.source_abs;
  r.arch = arch;
  r.arch_list = unit.archs;
  r.flags = unit.include_flags;
  for (const std::string &f : tooling::device_code_flags(unit.device_flags))
    r.flags.push_back(f);
  r.std = unit.std.empty() ? "c++17" : unit.std;
  r.working_dir = unit.working_dir;
  r.cuda_root = tooling::cuda_root_of(nvcc_of(unit));
  r.toolchain = unit.toolchain.empty() ? tooling::toolchain_identity(nvcc_of(unit)) : unit.toolchain;
  r.shim_dir = kbcc_dir + "/tooling/shims-v1";
  return r;
}

class ToolingExtractor : public Extractor {
public:
  explicit ToolingExtractor(const Config &config) : dir_(config.dir()), cache_(config.dir() + "/extract") {
    double seconds = config.get_double("parse_timeout");
    timeout_ = std::chrono::milliseconds(static_cast<int64_t>((seconds > 0 ? seconds : 120) * 1000));
  }

  // Parse counters (parses, parse time, extraction cache hits) are counted by
  // the pipeline from the result; this stage adds the reasons kernels are not
  // optimizable and the reasons extraction failed.
  Expected<tooling::Extraction> extract(const CompileUnit &unit, const std::string &arch) override {
    tooling::ParseRequest request = request_for(unit, arch, dir_);
    auto x = cached_or_parsed(request);
    if (!x) {
      log_line("extraction of " + request.source + " for " + arch + " failed (" + x.error().code +
               "): " + x.error().message);
      cache::add_stats(dir_, {{"extraction-failed:" + x.error().code, 1}});
      return x;
    }
    cache::Counters reasons;
    for (const tooling::Kernel &k : x->kernels)
      if (!k.not_optimizable.empty()) reasons["not-optimizable:" + k.not_optimizable] += 1;
    if (!reasons.empty()) cache::add_stats(dir_, reasons);
    return x;
  }

private:
  Expected<tooling::Extraction> cached_or_parsed(const tooling::ParseRequest &request) {
    if (auto hit = cache_.lookup(request)) return std::move(*hit);
    auto x = tooling::extract_isolated(request, timeout_);
    if (!x) return x;
    if (auto s = cache_.store(request, *x); !s) log_line("extraction cache: " + s.error().message);
    return x;
  }

  std::string dir_;
  tooling::ExtractCache cache_;
  std::chrono::milliseconds timeout_{120000};
};

const tooling::Kernel *find_kernel(const std::vector<tooling::Extraction> &per_arch, const ChosenVariant &c,
                                   const tooling::Extraction **in) {
  for (const tooling::Extraction &x : per_arch) {
    if (x.arch != c.arch) continue;
    for (const tooling::Kernel &k : x.kernels)
      if (k.hash == c.kernel_hash) {
        *in = &x;
        return &k;
      }
  }
  return nullptr;
}

using RangeKey = std::pair<uint64_t, uint64_t>;

// Every instantiation sharing a template's text must get the same variant
// for that arch, or the template keeps its original text there.
bool all_instantiations_agree(const tooling::Extraction &x, RangeKey range, const std::string &source,
                              const std::vector<ChosenVariant> &chosen) {
  for (const tooling::Kernel &k : x.kernels) {
    if (k.begin != range.first || k.end != range.second) continue;
    bool agreed = false;
    for (const ChosenVariant &c : chosen)
      if (c.arch == x.arch && c.kernel_hash == k.hash && c.source == source) agreed = true;
    if (!agreed) return false;
  }
  return true;
}

class ToolingRewriter : public UnitRewriter {
public:
  Expected<std::string> rewrite(const CompileUnit &unit, const std::vector<tooling::Extraction> &per_arch,
                                const std::vector<ChosenVariant> &chosen) override {
    std::string path = unit.source_abs.empty() ? real_path(unit.source) : unit.source_abs;
    auto text = read_file(path);
    if (!text) return text.error();
    std::map<RangeKey, std::map<int, tooling::ArchVariant>> by_range;
    for (const ChosenVariant &c : chosen) {
      const tooling::Extraction *x = nullptr;
      const tooling::Kernel *k = find_kernel(per_arch, c, &x);
      if (!k || !k->not_optimizable.empty() || !k->in_main_file || real_path(k->file) != real_path(path)) continue;
      RangeKey range{k->begin, k->end};
      if (k->is_template && !all_instantiations_agree(*x, range, c.source, chosen)) continue;
      int arch = tooling::cuda_arch_number(c.arch);
      by_range[range][arch] = {arch, c.name, c.source};
    }
    if (by_range.empty()) return std::move(*text);
    std::vector<tooling::Substitution> subs;
    for (auto &[range, archs] : by_range) {
      tooling::Substitution s{range.first, range.second, {}};
      for (auto &[arch, v] : archs)
        s.variants.push_back(v);
      subs.push_back(std::move(s));
    }
    return tooling::rewrite_unit(*text, path, std::move(subs));
  }
};

} // namespace

std::unique_ptr<Extractor> make_extractor(const Config &config) { return std::make_unique<ToolingExtractor>(config); }
std::unique_ptr<UnitRewriter> make_rewriter(const Config &) { return std::make_unique<ToolingRewriter>(); }

} // namespace kbcc::driver
