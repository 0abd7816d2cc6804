// `kbcc optimize` / `kbcc warm` end to end: collects the registry kernels
// that have replayable captures for the local GPU, runs the loop on each
// with the persistent KB, stores trajectories and winning variants, and
// prints a summary table.
#pragma once
#include "agent/loop.h"
#include "cache/variant.h"
#include "gpu/harness.h"
#include "kb/registry.h"
#include "kb/trajectory.h"

#include <functional>
#include <ostream>

namespace kbcc {
class Config;
}

namespace kbcc::agent {

struct RunRequest {
  std::string kernel; // name, mangled name, hash or hash prefix; empty = every kernel
  std::string arch;   // required local arch (kbcc warm); empty = whatever the GPU is
  LoopOptions loop;
  bool use_llm = true; // use the configured LLM (if any)
  // Called on each winning variant before it is stored (e.g. to sign it);
  // an Error keeps it out of the cache.
  std::function<Status(cache::VariantRecord &)> prepare_variant;
  // Called on each variant after it was stored (e.g. to publish it).
  std::function<void(const cache::VariantRecord &)> stored_variant;
};

// Registry hashes of the kernels `kbcc optimize` would work on for `arch`
// (built for `arch`, with replayable captures from any arch), for work queues.
Expected<std::vector<std::string>> optimizable_kernels(const Config &config, const std::string &arch);

// Tasks for `arch`: the registry entries built for it (or without archs)
// that match `filter` and have replayable captures recorded on any arch,
// matched by kernel hash, by the hash of the same definition built for
// another arch, or by mangled name when a capture has no hash.
std::vector<KernelTask> collect_tasks(const std::vector<kb::RegistryEntry> &entries,
                                      const std::vector<gpu::CaptureInfo> &captures, const std::string &arch,
                                      const std::string &filter);

// Context of a run recorded with every trajectory and variant.
struct RunContext {
  std::string gpu_name, driver, contributor, kb_snapshot, llm_model, toolchain;
  int64_t started = 0;
};

// The store's form of a trajectory.
kb::Trajectory store_trajectory(const TrajectoryRecord &t, const Measurement &baseline, const RunContext &ctx,
                                int64_t finished);

// The variant record of a winning candidate.
cache::VariantRecord variant_record(const KernelTask &task, const Candidate &best, const Measurement &baseline,
                                    const Evaluation &eval, const RunContext &ctx, const std::string &trajectory_id);

// Runs everything; returns the process exit status (0 also when nothing improved).
int run_optimize(const Config &config, const RunRequest &request, std::ostream &out, std::ostream &err);

} // namespace kbcc::agent
