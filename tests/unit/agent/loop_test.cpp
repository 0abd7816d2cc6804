#include "agent/loop.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <set>

using namespace kbcc::agent;
using test::FakeEvaluator;
using test::ok_eval;

namespace {

KernelTask saxpy_task() {
  KernelTask t;
  t.kernel.qualified_name = "saxpy";
  t.kernel.hash = "0123456789abcdef0123456789abcdef";
  t.kernel.source = test::kSaxpy;
  t.arch = "sm_90";
  kbcc::launch::Launch l;
  l.block[0] = 256;
  t.launches = {l};
  return t;
}

const Metrics kMem{{"dram_throughput_pct", 85}, {"sm_throughput_pct", 20}};

bool has(const Candidate &c, const std::string &id) {
  return std::find(c.optimizations.begin(), c.optimizations.end(), id) != c.optimizations.end();
}

// restrict_ldg: x0.8, unroll: x0.9, launch_bounds: does not compile.
Evaluation judge(const Candidate &c) {
  if (has(c, "bounds")) {
    Evaluation e;
    e.compile_log = "error: something";
    e.gpu_seconds = 0.5;
    return e;
  }
  double ms = 1.0;
  if (has(c, "read_only_cache")) ms *= 0.8;
  if (has(c, "unroll_loops")) ms *= 0.9;
  return ok_eval(ms, kMem);
}

struct Fixture {
  FakeEvaluator ev;
  JsonPolicy policy = *JsonPolicy::from_json(test::small_kb());
  CombinedLowerer lowerer{nullptr};
  LoopOptions options;
  Budget budget;
  LoopHooks hooks;
  std::vector<TrajectoryRecord> stored_trajectories;
  std::vector<Candidate> stored_variants;
  Fixture() {
    ev.base = Measurement{Timing{1.0, 0.005, 50}, kMem, 1.0};
    ev.judge = judge;
    hooks.store_trajectory = [this](const TrajectoryRecord &t) {
      stored_trajectories.push_back(t);
      return kbcc::Status::ok();
    };
    hooks.store_variant = [this](const KernelTask &, const Candidate &c, const Measurement &, const Evaluation &, int) {
      stored_variants.push_back(c);
      return kbcc::Status::ok();
    };
  }
  KernelResult run() {
    auto r = optimize_kernel(saxpy_task(), ev, policy, lowerer, options, budget, hooks);
    EXPECT_TRUE(r) << r.error().message;
    return *r;
  }
};

} // namespace

TEST(Loop, FindsAndStoresTheBestValidatedVariant) {
  Fixture f;
  KernelResult r = f.run();
  ASSERT_TRUE(r.best.has_value());
  EXPECT_TRUE(has(*r.best, "read_only_cache"));
  EXPECT_TRUE(has(*r.best, "unroll_loops"));
  EXPECT_NE(r.best->source.find("__restrict__"), std::string::npos);
  EXPECT_NE(r.best->source.find("#pragma unroll"), std::string::npos);
  EXPECT_NEAR(r.speedup, 1.0 / 0.72, 1e-9);
  EXPECT_TRUE(r.stored);
  ASSERT_EQ(f.stored_variants.size(), 1u);
  EXPECT_EQ(f.stored_trajectories.size(), r.trajectories.size());
}

TEST(Loop, EveryAttemptUpdatesTheKb) {
  Fixture f;
  KernelResult r = f.run();
  int failures = 0, attempts = 0;
  for (const auto &t : r.trajectories)
    for (const auto &s : t.steps) {
      ++attempts;
      failures += s.outcome == Outcome::Failed;
    }
  int kb_attempts = 0, kb_failures = 0;
  for (const auto &st : f.policy.states())
    for (const auto &o : f.policy.options(st.name, "sm_90")) {
      kb_attempts += o.stats.attempts;
      kb_failures += o.stats.failures;
      if (o.id == "bounds" && o.stats.attempts > 0) EXPECT_EQ(o.stats.failures, o.stats.attempts);
    }
  EXPECT_EQ(kb_attempts, attempts);
  EXPECT_EQ(kb_failures, failures);
  EXPECT_GT(attempts, 0);
  // Another arch has no evidence.
  for (const auto &o : f.policy.options("memory_bound", "sm_80"))
    EXPECT_EQ(o.stats.attempts, 0);
}

TEST(Loop, SameSeedReproducesTheRun) {
  Fixture a, b, c;
  c.options.seed = 12345;
  auto ra = a.run(), rb = b.run(), rc = c.run();
  std::string ja, jb, jc;
  for (const auto &t : ra.trajectories)
    ja += to_json(t).dump();
  for (const auto &t : rb.trajectories)
    jb += to_json(t).dump();
  for (const auto &t : rc.trajectories)
    jc += to_json(t).dump();
  EXPECT_EQ(ja, jb);
  EXPECT_EQ(a.policy.document(), b.policy.document());
  EXPECT_NE(ja, jc);
}

// Steps run over all trajectories of `r`.
static int steps_of(const KernelResult &r) {
  int n = 0;
  for (const auto &t : r.trajectories)
    n += static_cast<int>(t.steps.size());
  return n;
}

TEST(Loop, WallTimeStopsAKernelsSearch) {
  // A clock that advances 10 s per reading: the search may start steps until
  // 25 s have passed, then every trajectory stops with reason "time".
  Fixture f;
  double t = 0;
  f.hooks.clock = [&t] { return t += 10; };
  f.options.kernel_seconds = 25;
  KernelResult r = f.run();
  EXPECT_EQ(steps_of(r), 1);
  ASSERT_FALSE(r.trajectories.empty());
  EXPECT_EQ(r.trajectories.front().stop_reason, "time");
  EXPECT_EQ(r.trajectories.size(), 1u); // no trajectory starts after the limit

  // 0: no limit, the same clock notwithstanding.
  Fixture g;
  g.hooks.clock = [&t] { return t += 10; };
  g.options.kernel_seconds = 0;
  EXPECT_GT(steps_of(g.run()), 1);
}

TEST(Loop, GpuBudgetStopsTheRun) {
  Fixture f;
  f.options.budget_gpu_seconds = 3.5; // baseline 1 s + a few evaluations
  f.options.candidates_per_step = 2;  // the budget is checked between steps
  f.options.confirm = false;
  KernelResult r = f.run();
  EXPECT_LE(f.ev.evaluations, 2 + 2); // at most one step beyond the budget
  EXPECT_GE(f.budget.gpu_seconds, 3.5);
  bool budget_stop = false;
  for (const auto &t : r.trajectories)
    budget_stop |= t.stop_reason == "budget";
  EXPECT_TRUE(budget_stop || r.trajectories.size() < 8u);
}

TEST(Loop, EarlyStopWhenNothingImproves) {
  Fixture f;
  f.ev.judge = [](const Candidate &) { return ok_eval(1.0, kMem); }; // every candidate is neutral
  KernelResult r = f.run();
  ASSERT_FALSE(r.trajectories.empty());
  EXPECT_LE(r.trajectories.size(), 3u); // trajectory_patience
  EXPECT_EQ(r.trajectories[0].stop_reason, "early-stop");
  EXPECT_EQ(r.trajectories[0].steps.size(), 2u); // step_patience
  // Later trajectories never lower a transform again from the same start
  // (its candidates would be the same); they stop when none is left.
  std::set<std::string> first_steps;
  for (const auto &t : r.trajectories) {
    if (!t.steps.empty()) EXPECT_TRUE(first_steps.insert(t.steps[0].lowering).second) << t.steps[0].lowering;
    if (t.stop_reason != "early-stop") EXPECT_EQ(t.stop_reason, "no-candidates");
  }
  EXPECT_FALSE(r.best.has_value());
  EXPECT_TRUE(f.stored_variants.empty());
}

TEST(Loop, GainWithinNoiseIsNotStored) {
  Fixture f;
  // 1.5% faster: a "success" never clears the 2% minimum gain.
  f.ev.judge = [](const Candidate &c) { return ok_eval(has(c, "read_only_cache") ? 0.985 : 1.0, kMem); };
  KernelResult r = f.run();
  EXPECT_FALSE(r.stored);
  EXPECT_TRUE(f.stored_variants.empty());
}

TEST(Loop, ConfirmationRunCanReject) {
  Fixture g;
  // Fast during the search, as slow as the baseline when re-measured.
  g.ev.judge = [n = 0](const Candidate &c) mutable {
    return ok_eval(has(c, "read_only_cache") && n++ == 0 ? 0.8 : 1.0, kMem);
  };
  g.options.trajectories = 1;
  g.options.depth = 1;
  g.options.selector.exploration = 0;
  g.options.selector.top_k = 1;
  KernelResult r = g.run();
  ASSERT_TRUE(r.best.has_value());
  EXPECT_FALSE(r.stored);
  EXPECT_EQ(r.verdict, "speedup within measured noise");
  EXPECT_EQ(g.ev.baselines, 2);
}

// A lowerer that removes work: the candidate must never reach the GPU.
class CheatingLowerer : public Lowerer {
public:
  Usage per_call{1000, 500, 0.01, 1};
  Usage total;
  bool can_lower(const Option &) const override { return true; }
  Usage spent() const override { return total; }
  kbcc::Expected<Lowered> lower(const LoweringRequest &r) override {
    total += per_call;
    Lowered l;
    Candidate c;
    c.source = "__global__ void saxpy(int n, float a, const float *x, float *y) { }";
    c.optimizations = {r.option.id};
    c.lowering = "llm:test";
    l.candidates = {c};
    l.usage = per_call;
    return l;
  }
  kbcc::Expected<Lowered> fix(const LoweringRequest &r, const Candidate &, const std::string &) override {
    return lower(r);
  }
};

TEST(Loop, RemovedWorkIsRejectedBeforeTiming) {
  Fixture f;
  CheatingLowerer cheat;
  f.options.trajectories = 2;
  auto r = optimize_kernel(saxpy_task(), f.ev, f.policy, cheat, f.options, f.budget, f.hooks);
  ASSERT_TRUE(r);
  EXPECT_EQ(f.ev.evaluations, 0);
  ASSERT_FALSE(r->trajectories.empty());
  const StepRecord &s = r->trajectories[0].steps.at(0);
  EXPECT_EQ(s.outcome, Outcome::Failed);
  EXPECT_NE(s.error.find("removed"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("never writes output parameter 'y'"), std::string::npos) << s.error;
  EXPECT_EQ(s.fix_rounds, f.options.max_fixes);
}

TEST(Loop, TokenBudgetStopsTheRun) {
  Fixture f;
  CheatingLowerer cheat;
  f.options.budget_tokens = 4000; // 1500 per call
  auto r = optimize_kernel(saxpy_task(), f.ev, f.policy, cheat, f.options, f.budget, f.hooks);
  ASSERT_TRUE(r);
  EXPECT_GE(f.budget.tokens, 4000);
  EXPECT_LE(f.budget.tokens, 4500);
  long tokens = 0;
  for (const auto &t : r->trajectories)
    tokens += t.usage.tokens();
  EXPECT_EQ(tokens, f.budget.tokens);
  EXPECT_NEAR(f.budget.cost, 0.03, 1e-12);
}

TEST(Loop, ProgressCoversThePlannedSteps) {
  Fixture f;
  long last_done = 0, last_total = 0;
  f.hooks.progress = [&](long done, long total, const std::string &) {
    EXPECT_GE(done, last_done);
    last_done = done;
    last_total = total;
  };
  long done = 0;
  auto r = optimize_kernel(saxpy_task(), f.ev, f.policy, f.lowerer, f.options, f.budget, f.hooks, &done, 32);
  ASSERT_TRUE(r);
  EXPECT_EQ(done, 32);
  EXPECT_EQ(last_done, 32);
  EXPECT_EQ(last_total, 32);
}

TEST(Loop, FallsBackToMechanicalProbesOfOtherStates) {
  Fixture f;
  // The kernel's state only has an LLM technique; without an LLM the loop
  // probes with the mechanical optimizations the KB lists for other states.
  f.policy = *JsonPolicy::from_json(nlohmann::json::parse(R"({"states":[
    {"name":"memory_bound","signature":{"dram_throughput_pct":85,"sm_throughput_pct":20},
     "optimizations":[{"id":"tiling","predicted_speedup":1.5}]},
    {"name":"other","signature":{"dram_throughput_pct":10,"sm_throughput_pct":10},
     "optimizations":[{"id":"read_only_cache","mechanical":"restrict_ldg","predicted_speedup":1.1}]}]})"));
  f.options.trajectories = 1;
  KernelResult r = f.run();
  ASSERT_FALSE(r.trajectories[0].steps.empty());
  EXPECT_EQ(r.trajectories[0].steps[0].option, "read_only_cache");
  EXPECT_EQ(r.trajectories[0].steps[0].state, "memory_bound");
  EXPECT_TRUE(r.stored);
  const auto opts = f.policy.options("memory_bound", "sm_90");
  ASSERT_EQ(opts.size(), 2u); // adopted into the state with its evidence
  EXPECT_EQ(opts[1].stats.attempts, 1);
}

TEST(Loop, AFailedConfirmationSaysWhyAndStoresNothing) {
  Fixture f;
  f.ev.judge = [&](const Candidate &c) {
    Evaluation e = judge(c);
    // Validates while the trajectories run; not in the confirmation, which
    // re-measures the baseline first.
    if (f.ev.baselines > 1) {
      e.validated = false;
      e.validation_log = "buffer 1 (y): 3 mismatches\nmax abs error 0.01";
    }
    return e;
  };
  KernelResult r = f.run();
  EXPECT_FALSE(r.stored);
  EXPECT_TRUE(f.stored_variants.empty());
  EXPECT_EQ(r.verdict,
            "confirmation run failed: does not validate again: buffer 1 (y): 3 mismatches max abs error 0.01");
}
