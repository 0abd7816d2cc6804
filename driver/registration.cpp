#include "driver/registration.h"

#include "cache/env.h"
#include "cache/stats.h"
#include "driver/deferral.h"
#include "driver/stages.h"
#include "driver/toolchain.h"
#include "kb/pending.h"
#include "support/fs.h"
#include "support/log.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>

namespace kbcc::driver {
namespace {

enum class Outcome { Registered, Failed, Gone };

// Parses one unit for each of its archs and records its kernels; adds its
// parses to `stats` as a build would. Gone: its source or the folder it was
// compiled in no longer exists (e.g. a configure step's scratch compile).
Outcome register_unit(const Config &config, CompileUnit unit, cache::Counters &stats) {
  if (!file_exists(unit.source_abs.empty() ? unit.source : unit.source_abs)) return Outcome::Gone;
  if (!unit.working_dir.empty() && !file_exists(unit.working_dir)) return Outcome::Gone;
  auto toolchain = toolchain_id(unit.nvcc_argv[0], config.dir());
  if (!toolchain) {
    log_line("deferred registration of " + unit.source + ": " + toolchain.error().message);
    return Outcome::Failed;
  }
  unit.toolchain = *toolchain;
  auto extractor = make_extractor(config);
  std::vector<tooling::Extraction> per_arch;
  for (const std::string &arch : unit.archs) {
    auto e = extractor->extract(unit, arch); // counts and notes its own failures, like a build
    if (!e) {
      log_line("deferred registration of " + unit.source + " (" + e.error().code + "): " + e.error().message);
      return Outcome::Failed;
    }
    if (e->from_cache) {
      stats[cache::kExtractionCacheHits] += 1;
    } else {
      stats[cache::kParses] += 1;
      stats[cache::kParseMicros] += static_cast<uint64_t>(e->parse_seconds * 1e6);
    }
    per_arch.push_back(std::move(*e));
  }
  auto lookup = make_variant_lookup(config, unit);
  if (!lookup) {
    log_line("deferred registration of " + unit.source + ": " + lookup.error().message);
    return Outcome::Failed;
  }
  (*lookup)->record(unit, per_arch);
  return Outcome::Registered;
}

} // namespace

Expected<Registration> register_pending(const Config &config, bool progress) {
  Registration r;
  { // A command run before any build creates no store.
    auto peek = cache::Env::open(config.dir(), cache::env_options(config, /*read_only=*/true));
    if (!peek && peek.error().code == cache::kErrAbsent) return r;
    if (!peek) return peek.error();
    auto n = kb::PendingUnits(**peek).count();
    if (!n) return n.error();
    if (*n == 0) return r;
  }
  auto env = cache::Env::open(config.dir(), cache::env_options(config));
  if (!env) return env.error();
  kb::PendingUnits pending(**env);
  auto units = pending.list();
  if (!units) return units.error();
  if (units->empty()) return r;
  if (progress)
    std::fprintf(stderr, "kbcc: registering the kernels of %zu unit(s) compiled without a parse\n", units->size());
  std::atomic<size_t> next{0};
  std::mutex m;
  size_t done = 0;
  cache::Counters stats;
  auto work = [&] {
    for (size_t i; (i = next++) < units->size();) {
      const kb::PendingUnit &p = (*units)[i];
      auto unit = unit_from_json(p.unit);
      cache::Counters mine;
      Outcome o = unit ? register_unit(config, *unit, mine) : Outcome::Failed;
      if (!unit) log_line("deferred registration: pending unit " + p.key + ": " + unit.error().message);
      std::lock_guard<std::mutex> lock(m);
      for (const auto &[k, v] : mine)
        stats[k] += v;
      (o == Outcome::Registered ? r.registered : o == Outcome::Gone ? r.gone : r.failed) += 1;
      if (auto st = pending.remove(p.key); !st) log_line("deferred registration: " + st.error().message);
      ++done;
      if (progress)
        std::fprintf(stderr, "kbcc: [%zu/%zu] %s%s\n", done, units->size(), unit ? unit->source.c_str() : p.key.c_str(),
                     o == Outcome::Registered ? ""
                     : o == Outcome::Gone     ? " (gone)"
                                              : " (parse failed: see kbcc stats)");
    }
  };
  unsigned jobs = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 16));
  std::vector<std::thread> pool;
  for (unsigned j = 0; j < jobs; ++j)
    pool.emplace_back(work);
  for (auto &t : pool)
    t.join();
  if (auto st = cache::add_stats(config.dir(), stats); !st) log_line("cannot update statistics: " + st.error().message);
  return r;
}

} // namespace kbcc::driver
