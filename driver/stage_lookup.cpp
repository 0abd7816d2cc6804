// Variant lookup and registry recording backed by cache/ and kb/.
//   pinned (KBCC_SNAPSHOT or a kbcc.lock, kb/snapshot.h): only the snapshot's
//     variants are used; nothing is recorded or fetched.
//   otherwise: the local variant cache, then (on a miss, within
//     remote_timeout) a trusted variant from the remote store, which is kept
//     locally; every kernel is recorded in the registry.
#include "cache/env.h"
#include "cache/stats.h"
#include "cache/variant.h"
#include "driver/stages.h"
#include "kb/registry.h"
#include "kb/snapshot.h"
#include "remote/variants.h"
#include "support/config.h"
#include "support/log.h"

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
    std::vector<kb::RegistryEntry> entries;
    int64_t now = cache::now_seconds();
    for (const auto &[hash, s] : seen)
      entries.push_back(kb::entry_from_kernel(*s.first, {s.second.begin(), s.second.end()}, unit.source_abs,
                                              unit.nvcc_argv, unit.working_dir, unit.toolchain, now));
    if (auto st = kb::Registry(*env_).upsert(entries); !st) {
      log_line("registry not updated for " + unit.source + ": " + st.error().message);
      count(config_, "registry-error:" + st.error().code);
    }
  }

private:
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
