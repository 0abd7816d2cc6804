#include "seed.h"

#include "cache/env.h"
#include "cache/variant.h"
#include "kb/policy.h"
#include "kb/registry.h"
#include "kb/trajectory.h"

#include <cmath>

namespace kbcc::report::testing {
namespace {

const char *const kNames[] = {"saxpy", "reduce_sum", "matmul", "softmax_rows", "transpose", "stencil5"};

std::string hash_of(size_t i) {
  std::string h = "00000000000000000000000000000000";
  h[0] = static_cast<char>('a' + i);
  h[31] = static_cast<char>('0' + i);
  return h;
}

kb::RegistryEntry registry_entry(size_t i) {
  kb::RegistryEntry e;
  e.hash = hash_of(i);
  e.qualified_name = kNames[i % 6];
  e.mangled_names = {"_Z" + std::to_string(e.qualified_name.size()) + e.qualified_name + "v"};
  e.source = "__global__ void " + e.qualified_name + "() {}";
  e.file = "/src/" + e.qualified_name + ".cu";
  e.line = 3;
  e.tu_path = e.file;
  e.toolchain = "nvcc 13.0";
  e.archs = {"sm_90"};
  e.first_seen = e.last_seen = 1700000000;
  e.build_count = 1;
  return e;
}

cache::VariantRecord variant(size_t i) {
  cache::VariantRecord v;
  v.kernel_hash = hash_of(i);
  v.arch = "sm_90";
  v.qualified_name = kNames[i % 6];
  v.source = "__global__ void " + v.qualified_name + "() { /* faster */ }";
  v.toolchain = "nvcc 13.0";
  v.provenance.trajectory = "t" + std::to_string(i);
  v.provenance.optimizations = {"launch_bounds"};
  v.provenance.created = 1700000000;
  v.validation.captures_checked = 2;
  v.validation.tolerance = 1e-5;
  v.validation.sanitizer = "clean";
  v.timing.baseline_median_us = 100.0 * (i + 1);
  v.timing.variant_median_us = 100.0 * (i + 1) / (1.2 + 0.6 * i);
  v.timing.runs = 20;
  v.timing.gpu_name = "NVIDIA H100";
  return v;
}

kb::Trajectory trajectory(size_t t, size_t kernels, const kb::Policy &policy) {
  kb::Trajectory tr;
  size_t k = t % kernels;
  tr.id = "traj-" + std::to_string(t);
  tr.kernel_hash = hash_of(k);
  tr.arch = "sm_90";
  tr.gpu_name = "NVIDIA H100";
  tr.started = 1700000000 + static_cast<int64_t>(t) * 240;
  tr.finished = tr.started + 200;
  tr.baseline_median_us = 100;
  tr.initial_state = policy.states.empty() ? "unknown" : policy.states[k % policy.states.size()].id;
  for (uint32_t s = 0; s < 4; ++s) {
    kb::TrajectoryStep step;
    step.index = s;
    step.state = tr.initial_state;
    step.optimization =
        policy.optimizations.empty() ? "none" : policy.optimizations[(t + s) % policy.optimizations.size()].id;
    step.lowering = "launch_bounds";
    step.compiled = s != 1;
    step.validated = s != 1 && s != 3;
    step.failure = step.compiled ? (step.validated ? "" : "validation: outputs differ") : "compile error";
    step.speedup = step.validated ? 1.0 + 0.25 * (s + 1) + 0.1 * k : 0;
    step.gpu_seconds = 1.5 + s;
    step.wall_seconds = 40;
    if (step.validated)
      step.metrics = {{"sm_throughput_pct", 20.0 + 15 * s + 5 * k}, {"dram_throughput_pct", 70.0 - 10 * s + 2 * k}};
    tr.best_speedup = std::max(tr.best_speedup, step.speedup);
    tr.steps.push_back(step);
  }
  return tr;
}

Status seed_policy_evidence(kb::PolicyStore &store) {
  auto policy = kb::seed_policy();
  if (!policy) return policy.error();
  for (size_t i = 0; i < policy->states.size() && i < 5; ++i) {
    auto candidates = policy->candidates(policy->states[i].id);
    for (size_t c = 0; c < candidates.size() && c < 3; ++c)
      for (int n = 0; n < 3; ++n) {
        kb::Outcome o{true, n != 2, n == 0, 1.0 + 0.3 * (c + 1) / (n + 1)};
        if (Status s = policy->record(policy->states[i].id, candidates[c]->id, "sm_90", "tester", o); !s) return s;
      }
  }
  return store.save(*policy);
}

} // namespace

Status seed_store(const std::string &kbcc_dir, const SeedCounts &counts) {
  auto env = cache::Env::open(kbcc_dir);
  if (!env) return env.error();
  kb::PolicyStore policies(**env);
  if (Status s = seed_policy_evidence(policies); !s) return s;
  auto policy = policies.load();
  if (!policy) return policy.error();
  kb::Registry registry(**env);
  for (size_t i = 0; i < counts.kernels; ++i)
    if (Status s = registry.upsert(registry_entry(i)); !s) return s;
  cache::VariantStore variants(**env);
  for (size_t i = 0; i < counts.variants && i < counts.kernels; ++i)
    if (auto r = variants.put(variant(i)); !r) return r.error();
  kb::TrajectoryStore trajectories(**env);
  for (size_t t = 0; t < counts.trajectories; ++t)
    if (Status s = trajectories.put(trajectory(t, counts.kernels, *policy)); !s) return s;
  return Status::ok();
}

} // namespace kbcc::report::testing
