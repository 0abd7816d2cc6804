#include "report/data.h"

#include "support/fs.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace kbcc::report {
namespace {

Status load_tables(cache::Env &env, ReportData &data) {
  auto variants = cache::VariantStore(env).list();
  if (!variants) return variants.error();
  data.variants = std::move(*variants);
  auto trajectories = kb::TrajectoryStore(env).list();
  if (!trajectories) return trajectories.error();
  data.trajectories = std::move(*trajectories);
  std::stable_sort(data.trajectories.begin(), data.trajectories.end(),
                   [](const kb::Trajectory &a, const kb::Trajectory &b) {
                     return a.started != b.started ? a.started < b.started : a.index < b.index;
                   });
  auto registry = kb::Registry(env).list();
  if (!registry) return registry.error();
  data.registry = std::move(*registry);
  return Status::ok();
}

bool policy_stored(cache::Env &env) {
  bool found = false;
  Status s = env.read([&](cache::Txn &txn) -> Status {
    auto v = txn.get(cache::kPolicyTable, "policy");
    found = v && v->has_value();
    return Status::ok();
  });
  return s && found;
}

} // namespace

Expected<ReportData> load_report_data(const std::string &kbcc_dir) {
  ReportData data;
  data.kbcc_dir = kbcc_dir;
  if (file_exists(cache::store_path(kbcc_dir) + "/data.mdb")) {
    cache::EnvOptions options;
    options.read_only = true;
    auto env = cache::Env::open(kbcc_dir, options);
    if (!env) return env.error();
    data.store_found = true;
    if (Status s = load_tables(**env, data); !s) return s.error();
    data.policy_is_seed = !policy_stored(**env);
    auto policy = kb::PolicyStore(**env).load();
    if (!policy) return policy.error();
    data.policy = std::move(*policy);
  } else {
    auto seed = kb::seed_policy();
    if (!seed) return seed.error();
    data.policy = std::move(*seed);
    data.policy_is_seed = true;
  }
  data.policy_id = kb::policy_id(data.policy);
  auto adapters = cache::read_adapter_stats(kbcc_dir);
  if (!adapters) return adapters.error();
  data.adapters = std::move(*adapters);
  return data;
}

std::string kernel_name(const ReportData &data, const std::string &kernel_hash) {
  for (const auto &e : data.registry)
    if (e.hash == kernel_hash && !e.qualified_name.empty()) return e.qualified_name;
  for (const auto &v : data.variants)
    if (v.kernel_hash == kernel_hash && !v.qualified_name.empty()) return v.qualified_name;
  return kernel_hash.substr(0, 12);
}

std::vector<KernelResult> kernel_results(const ReportData &data) {
  std::map<std::pair<std::string, std::string>, KernelResult> by_key;
  auto slot = [&](const std::string &hash, const std::string &arch) -> KernelResult & {
    KernelResult &r = by_key[{hash, arch}];
    if (r.kernel_hash.empty()) {
      r.kernel_hash = hash;
      r.arch = arch;
      r.name = kernel_name(data, hash);
    }
    return r;
  };
  for (const auto &t : data.trajectories) {
    KernelResult &r = slot(t.kernel_hash, t.arch);
    for (const auto &s : t.steps) {
      ++r.attempts;
      r.gpu_seconds += s.gpu_seconds;
      if (s.validated) r.speedup = std::max(r.speedup, s.speedup);
    }
  }
  for (const auto &e : data.registry)
    for (const auto &arch : e.archs)
      slot(e.hash, arch);
  for (const auto &v : data.variants) {
    KernelResult &r = slot(v.kernel_hash, v.arch);
    r.stored = true;
    r.speedup = v.timing.speedup() > 0 ? v.timing.speedup() : r.speedup;
  }
  std::vector<KernelResult> out;
  for (auto &[key, r] : by_key)
    out.push_back(std::move(r));
  std::stable_sort(out.begin(), out.end(),
                   [](const KernelResult &a, const KernelResult &b) { return a.speedup > b.speedup; });
  return out;
}

std::vector<StateStats> state_stats(const ReportData &data) {
  std::vector<StateStats> out;
  for (const auto &state : data.policy.states) {
    StateStats st{state.id, state.name, state.primary_bottleneck};
    double log_sum = 0;
    uint64_t validated = 0;
    for (const auto &opt : data.policy.optimizations) {
      kb::StatsSummary s = data.policy.summary(opt.id, "", state.id);
      st.attempts += s.attempts;
      st.successes += s.successes;
      uint64_t n = s.attempts - s.compile_failures - s.validation_failures;
      if (n > 0 && s.geomean_speedup > 0) {
        log_sum += n * std::log(s.geomean_speedup);
        validated += n;
      }
    }
    st.geomean_speedup = validated ? std::exp(log_sum / validated) : 0;
    for (const auto &t : data.trajectories)
      for (const auto &step : t.steps)
        st.trajectory_steps += step.state == state.id;
    out.push_back(std::move(st));
  }
  return out;
}

} // namespace kbcc::report
