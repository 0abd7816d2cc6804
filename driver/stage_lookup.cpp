// Variant lookup and registry recording backed by cache/ and kb/.
//   pinned (KBCC_SNAPSHOT or a kbcc.lock, kb/snapshot.h): only the snapshot's
//     variants are used; nothing is recorded or fetched.
//   otherwise: the local variant cache, then (on a miss, within
//     remote_timeout) a trusted variant from the remote store, which is kept
//     locally; every kernel is recorded in the registry with its unit's
//     closure (kb/closure.h: the user files the parse opened), so the unit
//     compiles without the checkout.
#include "cache/env.h"
#include "cache/stats.h"
#include "cache/variant.h"
#include "driver/stages.h"
#include "kb/closure.h"
#include "kb/registry.h"
#include "kb/snapshot.h"
#include "remote/variants.h"
#include "support/config.h"
#include "support/log.h"
#include "tooling/toolchain.h"

#include <filesystem>
#include <map>
#include <set>

namespace kbcc::driver {
namespace {

ChosenVariant chosen_from(const cache::VariantRecord &r, const char *origin) {
  return ChosenVariant{r.kernel_hash, r.arch, r.source, "kbcc-variant-" + r.id().substr(0, 16), origin, r.launch};
}

void count(const Config &config, const std::string &counter) {
  if (auto st = cache::add_stats(config.dir(), {{counter, 1}}); !st) log_line("statistics: " + st.error().message);
}

class PinnedLookup : public VariantLookup {
public:
  explicit PinnedLookup(kb::Snapshot snapshot) : snapshot_(std::move(snapshot)) {}
  std::optional<ChosenVariant> lookup(const tooling::Kernel &kernel, const std::string &arch) override {
    const cache::VariantRecord *r = snapshot_.find(kernel.hash, arch);
    if (!r) return std::nullopt;
    return chosen_from(*r, "snapshot");
  }
  void record(const CompileUnit &, const std::vector<tooling::Extraction> &) override {}

private:
  kb::Snapshot snapshot_;
};

class StoreLookup : public VariantLookup {
public:
  StoreLookup(Config config, std::unique_ptr<cache::Env> env) : config_(std::move(config)), env_(std::move(env)) {}

  std::optional<ChosenVariant> lookup(const tooling::Kernel &kernel, const std::string &arch) override {
    cache::VariantStore store(*env_);
    auto found = store.get(kernel.hash, arch, /*touch=*/true);
    if (!found) {
      log_line("variant lookup " + kernel.hash + "/" + arch + ": " + found.error().message);
      count(config_, "lookup-error:" + found.error().code);
      return std::nullopt;
    }
    if (*found) return chosen_from(**found, "cache");
    auto remote = remote::fetch_variant(config_, kernel.hash, arch);
    if (!remote) return std::nullopt;
    if (auto put = store.put(*remote); !put) log_line("remote variant not kept locally: " + put.error().message);
    count(config_, "remote-hits");
    return chosen_from(*remote, "remote");
  }

  void record(const CompileUnit &unit, const std::vector<tooling::Extraction> &per_arch) override {
    // One entry per kernel hash, with every arch it was seen for.
    std::map<std::string, std::pair<const tooling::Kernel *, std::set<std::string>>> seen;
    for (const auto &ex : per_arch)
      for (const auto &k : ex.kernels) {
        auto &slot = seen[k.hash];
        if (!slot.first) slot.first = &k;
        slot.second.insert(ex.arch);
      }
    if (seen.empty()) return;
    std::string closure = record_closure(unit, per_arch);
    std::vector<kb::RegistryEntry> entries;
    int64_t now = cache::now_seconds();
    for (const auto &[hash, s] : seen) {
      entries.push_back(kb::entry_from_kernel(*s.first, {s.second.begin(), s.second.end()}, unit.source_abs,
                                              unit.nvcc_argv, unit.working_dir, unit.toolchain, now));
      entries.back().closure = closure;
    }
    if (auto st = kb::Registry(*env_).upsert(entries); !st) {
      log_line("registry not updated for " + unit.source + ": " + st.error().message);
      count(config_, "registry-error:" + st.error().code);
    }
  }

private:
  // Stores the unit's closure; its id, or "" when closures are off or it
  // could not be stored (one log line; the registry entry keeps the checkout).
  std::string record_closure(const CompileUnit &unit, const std::vector<tooling::Extraction> &per_arch) {
    uint64_t cap = config_.get_size("closure_max_size");
    if (cap == 0 || unit.nvcc_argv.empty()) return "";
    kb::CompileInputs in;
    in.unit = unit.source_abs.empty() ? unit.source : unit.source_abs;
    in.working_dir = unit.working_dir.empty() ? std::filesystem::current_path().string() : unit.working_dir;
    in.command = unit.nvcc_argv;
    for (const auto &ex : per_arch)
      in.included_files.insert(in.included_files.end(), ex.included_files.begin(), ex.included_files.end());
    in.toolchain = kb::toolchain_dirs(tooling::cuda_root_of(unit.nvcc_argv[0]), config_.dir());
    auto id = kb::ClosureStore(*env_, cap).record(in);
    if (id) return *id;
    log_line("unit closure not recorded for " + unit.source + ": " + id.error().message);
    count(config_, "closure-error:" + id.error().code);
    return "";
  }

  Config config_;
  std::unique_ptr<cache::Env> env_;
};

std::string unit_dir(const CompileUnit &unit) {
  std::filesystem::path p(unit.source_abs.empty() ? unit.source : unit.source_abs);
  if (p.is_relative() && !unit.working_dir.empty()) p = std::filesystem::path(unit.working_dir) / p;
  return p.parent_path().string();
}

} // namespace

Expected<std::unique_ptr<VariantLookup>> make_variant_lookup(const Config &config, const CompileUnit &unit) {
  std::string pinned = kb::find_pinned_snapshot(config.get("snapshot"), unit_dir(unit));
  if (!pinned.empty()) {
    if (std::filesystem::path(pinned).is_relative() && !unit.working_dir.empty())
      pinned = (std::filesystem::path(unit.working_dir) / pinned).string();
    auto snapshot = kb::load_snapshot(pinned);
    if (!snapshot) return snapshot.error(); // code kb::kErrBadSnapshot ("bad-snapshot")
    return std::unique_ptr<VariantLookup>(std::make_unique<PinnedLookup>(std::move(*snapshot)));
  }
  cache::EnvOptions options;
  options.max_size = config.get_size("max_size");
  auto env = cache::Env::open(config.dir(), options);
  if (!env) return env.error(); // the message names the store file; the build falls back to nvcc
  return std::unique_ptr<VariantLookup>(std::make_unique<StoreLookup>(config, std::move(*env)));
}

} // namespace kbcc::driver
