// The real Evaluator: compiles a candidate into the kernel's translation unit
// (substituted for the local arch by tooling's rewriter) as a cubin with the
// unit's own device flags, then validates (every capture, fuzzed inputs,
// compute-sanitizer), times and profiles it through gpu/harness.h.
#pragma once
#include "agent/evaluator.h"
#include "gpu/harness.h"

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
  bool memcheck = true; // compute-sanitizer memcheck on the first capture
  unsigned timing_reps = 50;
  bool profile = true;
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

class GpuEvaluator : public Evaluator {
public:
  explicit GpuEvaluator(GpuEvaluatorOptions options);
  ~GpuEvaluator() override;
  Expected<Measurement> baseline(const KernelTask &task) override;
  Expected<Evaluation> evaluate(const KernelTask &task, const Candidate &candidate) override;

private:
  // Compiles; the cubin path, or the compiler's diagnostics as an Error with code "compile".
  Expected<std::string> build(const KernelTask &task, const std::string &source);
  // The captures usable on task.arch (agent/arch_captures.h), sorted once per task.
  Expected<std::vector<gpu::CaptureInfo>> captures(const KernelTask &task);
  Expected<Timing> time_all(const std::vector<gpu::CaptureInfo> &captures, const std::string &cubin);
  Metrics profile(const gpu::CaptureInfo &capture, const std::string &cubin);
  GpuEvaluatorOptions o_;
  std::string work_dir_;
  int builds_ = 0;
  std::map<std::string, std::vector<gpu::CaptureInfo>> usable_; // "<hash>/<arch>" -> captures()
};

} // namespace kbcc::agent
