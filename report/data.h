// What a report shows, read from the stores under one KBCC_DIR: variants,
// trajectories, the kernel registry and the KB policy.
#pragma once

#include "cache/stats.h"
#include "cache/variant.h"
#include "kb/policy.h"
#include "kb/registry.h"
#include "kb/trajectory.h"
#include "support/expected.h"

#include <map>
#include <string>
#include <vector>

namespace kbcc::report {

struct ReportData {
  std::string kbcc_dir;
  bool store_found = false; // false: no store yet (the report says so)
  std::vector<cache::VariantRecord> variants;
  std::vector<kb::Trajectory> trajectories; // oldest first
  std::vector<kb::RegistryEntry> registry;
  kb::Policy policy;
  bool policy_is_seed = false; // nothing stored yet: the shipped seed KB
  std::string policy_id;
  // Launches counted by launch adapters (KBCC_ADAPTER_STATS), per kernel hash.
  std::map<std::string, cache::AdapterCounts> adapters;
};

// Reads everything from `kbcc_dir` without writing. A missing store gives
// empty data (store_found = false); a corrupt one gives the store's Error.
Expected<ReportData> load_report_data(const std::string &kbcc_dir);

// One kernel's best result for one arch, from its variant or, when none was
// stored, from its trajectories.
struct KernelResult {
  std::string name; // qualified name, else the hash prefix
  std::string kernel_hash;
  std::string arch;
  double speedup = 0;     // best validated speedup (0 when none)
  bool stored = false;    // a variant is in the cache
  size_t attempts = 0;    // trajectory steps tried
  double gpu_seconds = 0; // GPU time of those steps
};

// Per (kernel, arch) results, best speedup first; registry kernels never
// tried are included with no attempts.
std::vector<KernelResult> kernel_results(const ReportData &data);

// Evidence summed over every optimization for one KB state.
struct StateStats {
  std::string id, name, bottleneck;
  uint64_t attempts = 0, successes = 0;
  double geomean_speedup = 0;  // over validated attempts, 0 when none
  size_t trajectory_steps = 0; // steps of stored trajectories taken in this state
};
std::vector<StateStats> state_stats(const ReportData &data);

// Human name of a kernel hash (registry, variant or hash prefix).
std::string kernel_name(const ReportData &data, const std::string &kernel_hash);

} // namespace kbcc::report
