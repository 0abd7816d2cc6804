// Shared fixtures for the agent tests: a small KB and an evaluator whose
// measurements the test supplies.
#pragma once
#include "agent/evaluator.h"
#include "agent/policy.h"

#include <functional>
#include <nlohmann/json.hpp>

namespace kbcc::agent::test {

inline nlohmann::json small_kb() {
  return nlohmann::json::parse(R"({"states":[
    {"name":"memory_bound","bottleneck":"memory_bound","signature":{"dram_throughput_pct":85,"sm_throughput_pct":20},
     "optimizations":[
       {"id":"read_only_cache","mechanical":"restrict_ldg","predicted_speedup":1.2},
       {"id":"unroll_loops","mechanical":"unroll","predicted_speedup":1.1},
       {"id":"bounds","mechanical":"launch_bounds","predicted_speedup":1.05},
       {"id":"tiling","description":"shared-memory tiling","predicted_speedup":1.5}]},
    {"name":"compute_bound","bottleneck":"compute_bound","signature":{"dram_throughput_pct":15,"sm_throughput_pct":90},
     "optimizations":[
       {"id":"fast_math","mechanical":"fast_math","predicted_speedup":1.3},
       {"id":"unroll_loops","mechanical":"unroll","predicted_speedup":1.1}]}]})");
}

inline const char *kSaxpy = R"(__global__ void saxpy(int n, float a, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] = a * x[i] + y[i];
  }
})";

// Evaluator double: `judge` decides each candidate's evaluation.
class FakeEvaluator : public Evaluator {
public:
  Measurement base;
  std::function<Evaluation(const Candidate &)> judge;
  int baselines = 0, evaluations = 0, profiles = 0, sanitized = 0;
  Expected<Measurement> baseline(const KernelTask &) override {
    ++baselines;
    return base;
  }
  std::vector<Expected<Evaluation>> evaluate(const KernelTask &, const std::vector<Candidate> &cs) override {
    std::vector<Expected<Evaluation>> out;
    for (const Candidate &c : cs) {
      ++evaluations;
      out.push_back(judge(c));
    }
    return out;
  }
  Metrics profile(const KernelTask &, const Candidate &c) override {
    ++profiles;
    return judge(c).metrics;
  }
  Expected<bool> sanitize(const KernelTask &, const Candidate &, std::string &report) override {
    ++sanitized;
    report = "memcheck: 0 error(s)";
    return true;
  }
};

inline Evaluation ok_eval(double ms, Metrics metrics = {}, double gpu_seconds = 1.0) {
  Evaluation e;
  e.compiled = e.validated = true;
  e.timing = Timing{ms, ms * 0.005, 50};
  e.metrics = std::move(metrics);
  e.gpu_seconds = gpu_seconds;
  return e;
}

} // namespace kbcc::agent::test
