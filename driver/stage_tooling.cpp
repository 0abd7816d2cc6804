// Extractor and rewriter stages backed by tooling/: extraction runs in a
// forked child with the parse_timeout and its results are cached per unit in
// $KBCC_DIR/extract (direct mode).
#include "driver/stage_tooling.h"

#include "cache/stats.h"
#include "driver/stages.h"
#include "support/config.h"
#include "support/fs.h"
#include "support/log.h"
#include "tooling/extract.h"
#include "tooling/extract_cache.h"
#include "tooling/host_compiler.h"
#include "tooling/launch_plan.h"
#include "tooling/rewrite.h"
#include "tooling/substitutions.h"
#include "tooling/toolchain.h"

namespace kbcc::driver {
namespace {

std::string nvcc_of(const CompileUnit &unit) {
  return unit.nvcc_argv.empty() ? std::string("/usr/local/cuda/bin/nvcc") : unit.nvcc_argv[0];
}

// The include directories of the host compiler nvcc would run for `unit`
// (cached per compiler under `kbcc_dir`); empty, with one log line, when
// that compiler cannot be asked.
std::vector<std::string> host_includes_of(const CompileUnit &unit, const std::string &kbcc_dir) {
  std::string ccbin = unit.host_compiler;
  if (ccbin.find('/') != std::string::npos && ccbin[0] != '/' && !unit.working_dir.empty())
    ccbin = unit.working_dir + "/" + ccbin;
  auto dirs = tooling::host_include_dirs(tooling::resolve_host_compiler(ccbin), kbcc_dir + "/tooling/host-includes");
  if (dirs) return *dirs;
  log_line("host include directories: " + dirs.error().message);
  return {};
}

} // namespace

tooling::ParseRequest parse_request_for(const CompileUnit &unit, const std::string &arch, const std::string &kbcc_dir) {
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
  r.shim_dir = kbcc_dir + "/tooling/shims";
  r.host_include_dirs = host_includes_of(unit, kbcc_dir);
  return r;
}

namespace {

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
    tooling::ParseRequest request = parse_request_for(unit, arch, dir_);
    auto x = cached_or_parsed(request);
    if (!x) { // the pipeline logs the fallback line; this counts the cause and names the first file
      cache::add_stats(dir_, {{"extraction-failed:" + x.error().code, 1}});
      (void)cache::note_first(dir_, "extraction-failed:" + x.error().code, x.error().message);
      return x;
    }
    cache::Counters reasons;
    std::map<std::string, std::string> firsts;
    for (const tooling::Kernel &k : x->kernels)
      if (!k.not_optimizable.empty()) {
        reasons["not-optimizable:" + k.not_optimizable] += 1;
        firsts.emplace("not-optimizable:" + k.not_optimizable,
                       k.qualified_name + " (" + k.file + ":" + std::to_string(k.line) + ")");
      }
    if (!reasons.empty()) cache::add_stats(dir_, reasons);
    for (const auto &[name, detail] : firsts)
      (void)cache::note_first(dir_, name, detail);
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

class ToolingRewriter : public UnitRewriter {
public:
  explicit ToolingRewriter(std::string kbcc_dir) : dir_(std::move(kbcc_dir)) {}

  // Substitutes what qualifies (tooling/substitutions.h, tooling/launch_plan.h)
  // and counts each chosen variant left out as "variant-not-substituted:<reason>",
  // each launch site routed through an adapter as "launch-site-rewritten" and
  // each one kept as "launch-site-kept:<reason>".
  Expected<RewrittenUnit> rewrite(const CompileUnit &unit, const std::vector<tooling::Extraction> &per_arch,
                                  const std::vector<ChosenVariant> &chosen) override {
    std::string path = real_path(unit.source_abs.empty() ? unit.source : unit.source_abs);
    auto text = read_file(path);
    if (!text) return text.error();
    std::vector<tooling::VariantChoice> choices;
    for (const ChosenVariant &c : chosen)
      choices.push_back({c.kernel_hash, c.arch, c.name, c.source, c.launch});
    std::vector<std::string> skipped;
    tooling::UnitEdits edits;
    edits.substitutions = tooling::plan_substitutions(path, per_arch, choices, &skipped);
    tooling::LaunchPlan launches = tooling::plan_launch_variants(path, per_arch, choices);
    skipped.insert(skipped.end(), launches.skipped.begin(), launches.skipped.end());
    edits.insertions = std::move(launches.edits.insertions);
    edits.replacements = std::move(launches.edits.replacements);
    cache::Counters counters;
    for (const std::string &reason : skipped)
      counters["variant-not-substituted:" + reason] += 1;
    for (const std::string &reason : launches.sites_kept)
      counters["launch-site-kept:" + reason] += 1;
    if (launches.sites_rewritten) counters["launch-site-rewritten"] += launches.sites_rewritten;
    if (!counters.empty()) cache::add_stats(dir_, counters);
    RewrittenUnit out;
    for (const ChosenVariant &c : chosen) {
      out.line_names.push_back(c.name);
      if (c.launch) out.line_names.push_back(tooling::adapter_line_name(c.name));
    }
    if (edits.substitutions.empty() && edits.insertions.empty()) {
      out.text = std::move(*text);
      return out;
    }
    auto rewritten = tooling::rewrite_unit(*text, path, std::move(edits));
    if (!rewritten) return rewritten.error();
    out.text = std::move(*rewritten);
    return out;
  }

private:
  std::string dir_;
};

} // namespace

std::unique_ptr<Extractor> make_extractor(const Config &config) { return std::make_unique<ToolingExtractor>(config); }
std::unique_ptr<UnitRewriter> make_rewriter(const Config &config) {
  return std::make_unique<ToolingRewriter>(config.dir());
}

} // namespace kbcc::driver
