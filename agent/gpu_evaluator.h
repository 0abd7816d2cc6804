// The real Evaluator: compiles candidates into the kernel's translation unit
// (substituted for the local arch by tooling's rewriter) as cubins with the
// unit's own device flags, in parallel on the CPU cores, then validates each
// on every capture through its launch mapping (captured outputs, fuzzed
// inputs, smaller size arguments) and times it in one kbcc-gpu session
// (gpu/session.h); ncu and compute-sanitizer run only when the loop asks.
#pragma once
#include "agent/evaluator.h"
#include "gpu/harness.h"
#include "gpu/session.h"

#include <map>
#include <optional>

#include <map>

namespace kbcc::cache {
class Env;
}

namespace kbcc::agent {

struct GpuEvaluatorOptions {
  std::string captures_dir; // $KBCC_DIR/captures
  std::string nvcc;         // the real nvcc
  gpu::RunnerOptions runner;
  unsigned fuzz_rounds = 2;
  bool memcheck = true; // compute-sanitizer memcheck before a variant is stored
  unsigned timing_reps = 20;
  bool profile = true;
  unsigned compile_jobs = 0; // parallel compiles; 0 = the machine's cores
  cache::Env *store = nullptr; // holds the units' closures (agent/unit_source.h); null = the checkout
};

// The nvcc command that compiles `input` to `output` (a cubin for `arch`)
// with the device-relevant flags of `compile_command` (defines, includes,
// -std, -O, fast-math and precision flags, -Xptxas, -G, -lineinfo, relaxed
// constexpr / extended lambda); host, output, dependency and arch flags are
// dropped. `extra_include` is searched first.
std::vector<std::string> cubin_command(const std::string &nvcc, const std::vector<std::string> &compile_command,
                                       const std::string &arch, const std::string &input, const std::string &output,
                                       const std::string &extra_include);

// The text of `task`'s translation unit with `kernel_source` substituted for
// the kernel for task.arch, and the path it must be compiled as (relative
// includes keep working: the caller adds the unit's directory with -I).
Expected<std::string> substituted_unit(const KernelTask &task, const std::string &kernel_source);

// One capture as the evaluator uses it: its summary and the values of the
// kernel's scalar and pointer arguments (for launch mappings).
struct CaptureArgs;

class GpuEvaluator : public Evaluator {
public:
  explicit GpuEvaluator(GpuEvaluatorOptions options);
  ~GpuEvaluator() override;
  Expected<Measurement> baseline(const KernelTask &task) override;
  std::vector<Expected<Evaluation>> evaluate(const KernelTask &task, const std::vector<Candidate> &candidates) override;
  Metrics profile(const KernelTask &task, const Candidate &candidate) override;
  Expected<bool> sanitize(const KernelTask &task, const Candidate &candidate, std::string &report) override;

private:
  // Compiles; the cubin path, or the compiler's diagnostics as an Error with code "compile".
  Expected<std::string> build(const KernelTask &task, const std::string &source, int id);
  // Compiles every source, `compile_jobs` at a time.
  std::vector<Expected<std::string>> build_all(const KernelTask &task, const std::vector<std::string> &sources);
  Expected<std::vector<CaptureArgs>> captures(const KernelTask &task);
  Expected<Evaluation> judge(const KernelTask &task, const Candidate &candidate, const std::string &cubin);
  // The cubin of the original for the local arch (compiled once per task).
  Expected<std::string> original(const KernelTask &task);
  GpuEvaluatorOptions o_;
  std::string work_dir_;
  int builds_ = 0;
  gpu::Session session_;
  std::string task_key_;                        // the task the cached state below belongs to
  std::string original_cubin_;
  std::map<std::string, double> baseline_us_;  // per capture id
  std::optional<Metrics> baseline_metrics_;     // profiled once per task
  std::map<std::string, std::shared_ptr<CaptureArgs>> args_; // per capture id
  std::map<std::string, std::vector<gpu::CaptureInfo>> usable_; // "<hash>/<arch>": the captures usable here
};

} // namespace kbcc::agent
