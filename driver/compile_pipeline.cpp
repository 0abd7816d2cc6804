#include "driver/compile_pipeline.h"

#include "support/fs.h"
#include "support/hash.h"

#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace kbcc::driver {
namespace {

// Extraction for every SASS arch of the unit.
Expected<std::vector<tooling::Extraction>> extract_all(Extractor &extractor, const CompileUnit &unit,
                                                       cache::Counters &stats) {
  std::vector<tooling::Extraction> per_arch;
  for (const auto &arch : unit.archs) {
    auto e = extractor.extract(unit, arch);
    if (!e) return e.error();
    if (e->from_cache)
      stats[cache::kExtractionCacheHits] += 1;
    else {
      stats[cache::kParses] += 1;
      stats[cache::kParseMicros] += static_cast<uint64_t>(e->parse_seconds * 1e6);
    }
    per_arch.push_back(std::move(*e));
  }
  return per_arch;
}

std::vector<ChosenVariant> choose(VariantLookup &lookup, const std::vector<tooling::Extraction> &per_arch,
                                  cache::Counters &stats) {
  std::vector<ChosenVariant> chosen;
  for (const auto &ex : per_arch) {
    for (const auto &k : ex.kernels) {
      if (!k.not_optimizable.empty()) continue;
      auto v = lookup.lookup(k, ex.arch);
      stats[v ? cache::kHits : cache::kMisses] += 1;
      if (v) chosen.push_back(std::move(*v));
    }
  }
  return chosen;
}

// Creates /tmp/kbcc-<uid> (mode 0700) and fails unless it is ours and
// private: another user must not be able to swap a rewritten unit.
Status private_temp_root(const std::string &root) {
  if (auto st = make_dirs(root); !st) return st;
  struct stat info;
  if (lstat(root.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != getuid())
    return make_error(root + " is not a directory owned by this user", "unsafe-temp-dir");
  if ((info.st_mode & 077) != 0 && chmod(root.c_str(), 0700) != 0)
    return make_error(root + " is accessible to other users", "unsafe-temp-dir");
  return Status::ok();
}

std::string source_dir(const std::string &source) {
  std::string dir = std::filesystem::path(source).parent_path().string();
  return dir.empty() ? "." : dir;
}

} // namespace

std::string rewritten_path(const std::string &text, const std::string &source) {
  return "/tmp/kbcc-" + std::to_string(getuid()) + "/" + hash_hex(text) + "/" +
         std::filesystem::path(source).filename().string();
}

std::vector<std::string> rewritten_command(const Compilation &c, const std::string &temp_source) {
  std::vector<std::string> argv = c.unit.nvcc_argv;
  argv[c.source_index] = temp_source;
  argv.insert(argv.begin() + 1, "-I" + source_dir(c.unit.source));
  return argv;
}

Expected<CompilePlan> plan_with_stages(const Compilation &c, const Config &config, PlanStages stages,
                                       cache::Counters &stats) {
  CompilePlan plan;
  plan.argv = c.unit.nvcc_argv;
  auto per_arch = extract_all(stages.extractor, c.unit, stats);
  if (!per_arch) return per_arch.error();
  auto lookup = stages.make_lookup();
  if (!lookup) return lookup.error();
  std::vector<ChosenVariant> chosen = choose(**lookup, *per_arch, stats);
  if (config.get_bool("record")) (*lookup)->record(c.unit, *per_arch);
  size_t kernels = 0;
  for (const auto &ex : *per_arch)
    kernels += ex.kernels.size();
  plan.notes.push_back(std::to_string(kernels) + " kernel(s) over " + std::to_string(per_arch->size()) + " arch(es), " +
                       std::to_string(chosen.size()) + " variant(s) chosen");
  if (chosen.empty()) return plan;

  auto rewritten = stages.rewriter.rewrite(c.unit, *per_arch, chosen);
  if (!rewritten) return rewritten.error();
  const std::string *text = &rewritten->text;
  plan.temp_source = rewritten_path(*text, c.unit.source);
  plan.temp_dir = std::filesystem::path(plan.temp_source).parent_path().string();
  if (auto st = private_temp_root(std::filesystem::path(plan.temp_dir).parent_path().string()); !st) return st.error();
  if (!file_exists(plan.temp_source) || read_file(plan.temp_source).value_or("") != *text) {
    if (auto st = write_file_atomic(plan.temp_source, *text); !st) return st.error();
  }
  plan.substituted = true;
  plan.line_names = rewritten->line_names;
  if (c.unit.source_abs != c.unit.source) plan.line_names.push_back(c.unit.source_abs);
  plan.argv = rewritten_command(c, plan.temp_source);
  return plan;
}

} // namespace kbcc::driver
