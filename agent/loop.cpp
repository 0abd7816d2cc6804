#include "agent/loop.h"

#include "agent/state.h"
#include "agent/work_check.h"
#include "cache/env.h"
#include "cache/variant.h"
#include "support/hash.h"
#include "support/log.h"

#include <algorithm>
#include <chrono>
#include <set>

namespace kbcc::agent {
namespace {

// Where a trajectory stands: its best validated candidate so far.
struct Position {
  Candidate candidate;
  Timing timing;
  Metrics metrics;
  std::string state;
};

struct Context {
  const KernelTask &task;
  Evaluator &evaluator;
  Policy &policy;
  Lowerer &lowerer;
  const LoopOptions &options;
  Budget &budget;
  const LoopHooks &hooks;
  const Measurement &baseline;
  // Mechanical transforms already lowered from a given start (start source
  // hash + transform id), in any trajectory: the same deterministic
  // candidates would be evaluated again, so other trajectories try others.
  std::set<std::string> lowered = {};
  double started = 0; // clock() when the kernel's search began
};

// Monotonic seconds: the hooks' clock, or steady_clock.
double clock_now(const LoopHooks &hooks) {
  if (hooks.clock) return hooks.clock();
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Whether the kernel's search has used its wall time (LoopOptions::kernel_seconds).
bool out_of_time(const Context &c) {
  return c.options.kernel_seconds > 0 && clock_now(c.hooks) - c.started >= c.options.kernel_seconds;
}

std::string lowered_key(const Candidate &start, const std::string &transform) {
  return hash_hex(start.source) + "/" + transform;
}

// Runs a lowerer call and charges what it spent to the step and the budget.
template <class Fn> Expected<Lowered> charged(Context &c, StepRecord &step, Fn fn) {
  Usage before = c.lowerer.spent();
  Expected<Lowered> out = fn();
  Usage after = c.lowerer.spent();
  Usage d{after.input_tokens - before.input_tokens, after.output_tokens - before.output_tokens,
          after.cost - before.cost, after.requests - before.requests};
  step.usage += d;
  c.budget.tokens += d.tokens();
  c.budget.cost += d.cost;
  return out;
}

// Statically checks a candidate; the failure as feedback, or "".
std::string static_failure(const Context &c, const Candidate &cand) {
  Status check = check_candidate(c.task.kernel.source, cand.source, cand.launch);
  return check ? "" : "static check (" + check.error().code + "): " + check.error().message;
}

// " (k=v, ...)" for a candidate's parameter setting; "" when it has none.
std::string settings_text(const Candidate &cand) {
  std::string out;
  for (const auto &[k, v] : cand.params)
    out += (out.empty() ? " (" : ", ") + k + "=" + v;
  return out.empty() ? out : out + ")";
}

// Feedback for a failed evaluation, or "" when it passed.
std::string failure_of(const Evaluation &e) {
  if (!e.error.empty()) return e.error;
  if (!e.compiled) return "compile error:\n" + e.compile_log;
  if (!e.validated) return "validation failed:\n" + e.validation_log;
  if (!e.sanitizer_clean) return "compute-sanitizer reported errors:\n" + e.validation_log;
  return {};
}

// Evaluates one candidate, feeding failures back to the lowerer up to
// max_fixes times (LLM candidates). The final candidate is left in `cand`.
Evaluation validate_with_fixes(Context &c, const LoweringRequest &req, Candidate &cand, StepRecord &step) {
  Evaluation eval;
  for (int round = 0;; ++round) {
    std::string feedback = static_failure(c, cand);
    if (feedback.empty()) {
      auto e = std::move(c.evaluator.evaluate(c.task, {cand}).front());
      eval = e ? *e : Evaluation{};
      feedback = e ? failure_of(eval) : "evaluation error: " + e.error().message;
      c.budget.gpu_seconds += eval.gpu_seconds;
      step.gpu_seconds += eval.gpu_seconds;
    } else {
      eval = Evaluation{};
    }
    ++step.candidates;
    if (feedback.empty()) return eval;
    step.error = feedback.substr(0, 2000);
    eval.validated = false;
    if (round >= c.options.max_fixes || c.budget.exhausted(c.options)) return eval;
    auto fixed = charged(c, step, [&] { return c.lowerer.fix(req, cand, feedback); });
    if (!fixed || fixed->candidates.empty()) return eval;
    cand = fixed->candidates.front();
    step.fix_rounds = round + 1;
  }
}

// Evaluates the parameter settings of a mechanical step together (compiled in
// parallel); returns one evaluation per candidate.
std::vector<Evaluation> evaluate_settings(Context &c, const std::vector<Candidate> &cands, StepRecord &step) {
  std::vector<Evaluation> evals(cands.size());
  std::vector<Candidate> checked;
  std::vector<size_t> where;
  for (size_t i = 0; i < cands.size(); ++i) {
    if (std::string f = static_failure(c, cands[i]); !f.empty()) {
      evals[i].error = f;
      continue;
    }
    checked.push_back(cands[i]);
    where.push_back(i);
  }
  auto results = c.evaluator.evaluate(c.task, checked);
  for (size_t k = 0; k < results.size() && k < where.size(); ++k) {
    if (!results[k]) {
      evals[where[k]].error = "evaluation error: " + results[k].error().message;
      continue;
    }
    evals[where[k]] = *results[k];
    c.budget.gpu_seconds += results[k]->gpu_seconds;
    step.gpu_seconds += results[k]->gpu_seconds;
  }
  step.candidates += static_cast<int>(cands.size());
  for (size_t i = 0; i < cands.size(); ++i)
    if (std::string f = failure_of(evals[i]); !f.empty() && cands.size() > 1)
      log_line("kbcc optimize: " + c.task.kernel.qualified_name + ": " + cands[i].lowering + settings_text(cands[i]) +
               " failed: " + f.substr(0, f.find('\n', f.find('\n') + 1)));
  return evals;
}

// Folds the step's outcome into the KB statistics of (state, option, arch).
void update_policy(Context &c, const Option &option, const std::string &state, StepRecord &step) {
  Attempt attempt{step.outcome, step.compiled, step.speedup, step.predicted};
  Status st = c.policy.record(state, option.id, c.task.arch, attempt);
  if (!st) log_line("kbcc optimize: KB update failed: " + st.error().message);
}

// Folds every evaluated parameter setting into the KB's parameter evidence.
void update_parameters(Context &c, const Option &option, const std::vector<Candidate> &cands,
                       const std::vector<Evaluation> &evals, const Timing &from, double predicted) {
  for (size_t i = 0; i < cands.size(); ++i) {
    if (cands[i].params.empty() || evals[i].error.rfind("evaluation error", 0) == 0) continue; // not measured
    Outcome o = classify(evals[i], from, c.options.noise);
    Attempt a{o, evals[i].compiled, o == Outcome::Failed ? 0 : speedup_of(from, evals[i].timing), predicted};
    Status st = c.policy.record_parameters(option.id, c.task.arch, cands[i].params, a);
    if (!st) log_line("kbcc optimize: KB parameter update failed: " + st.error().message);
  }
}

// Index of the fastest validated evaluation, or of the first when none validated.
size_t best_of(const std::vector<Evaluation> &evals) {
  size_t best = 0;
  bool found = false;
  for (size_t i = 0; i < evals.size(); ++i) {
    bool ok = evals[i].validated && evals[i].sanitizer_clean;
    if (ok && (!found || evals[i].timing.median_ms < evals[best].timing.median_ms)) best = i, found = true;
  }
  return best;
}

enum class StepEnd { Done, Skip, NoCandidates };

// The options a step chooses from: the state's own, and every structural
// transform of the KB whose legality analysis accepts the kernel as it
// stands (the profile says where the time goes, the analysis what can be
// restructured; the KB's evidence scores both the same way).
std::vector<Option> candidate_options(Context &c, const Position &pos) {
  std::vector<Option> out = c.policy.options(pos.state, c.task.arch);
  std::set<std::string> ids;
  for (const Option &o : out)
    ids.insert(o.id);
  for (const Option &o : c.policy.all_options(pos.state, c.task.arch))
    if (!ids.count(o.id) && c.lowerer.applies(o, c.task, pos.candidate) == true) out.push_back(o);
  return out;
}

// One step from `pos`; moves `pos` when the candidate improved on it.
StepEnd run_step(Context &c, Position &pos, Rng &rng, std::set<std::string> &tried, StepRecord &step, int trajectory) {
  auto eligible = [&](const Option &o) {
    return !tried.count(o.id) && (o.mechanical.empty() || !tried.count("transform:" + o.mechanical)) &&
           c.lowerer.can_lower(o) && !c.lowered.count(lowered_key(pos.candidate, o.mechanical)) &&
           c.lowerer.applies(o, c.task, pos.candidate) != false;
  };
  // The first trajectory exploits the KB; the others sample and explore.
  SelectorOptions selector = c.options.selector;
  selector.greedy = trajectory == 0;
  auto choice = select_option(candidate_options(c, pos), eligible, selector, rng);
  // Nothing of the state's own can be lowered: probe with the rest of the KB.
  if (!choice) choice = select_option(c.policy.all_options(pos.state, c.task.arch), eligible, selector, rng);
  if (!choice) return StepEnd::NoCandidates;
  const Option &option = choice->option;
  tried.insert(option.id);
  if (!option.mechanical.empty()) tried.insert("transform:" + option.mechanical);
  step.state = pos.state;
  step.option = option.id;
  step.explored = choice->explored;
  step.predicted = expected_speedup(option);
  LoweringRequest req{
      &c.task, &pos.candidate, State{pos.state, "", "", {}},  pos.metrics,
      option,  trajectory,     c.options.candidates_per_step, c.policy.parameter_ranking(option.id, c.task.arch)};
  for (const State &s : c.policy.states())
    if (s.name == pos.state) req.state = s;
  auto lowered = charged(c, step, [&] { return c.lowerer.lower(req); });
  if (!lowered || lowered->candidates.empty()) {
    if (!lowered && lowered.error().code == "not-applicable") return StepEnd::Skip;
    step.error = lowered ? "the lowering produced no candidate" : lowered.error().message;
    step.outcome = Outcome::Failed;
    step.lowering = "llm";
    return StepEnd::Done; // infrastructure failure: no KB evidence about the technique
  }
  std::vector<Candidate> cands = lowered->candidates;
  if (!cands.empty() && cands[0].lowering.rfind("llm:", 0) != 0)
    c.lowered.insert(lowered_key(pos.candidate, option.mechanical));
  if (!c.options.allow_reassociation) {
    std::erase_if(cands, [](const Candidate &x) { return x.numerics == cache::kNumericsReassociates; });
    if (cands.empty()) return StepEnd::Skip; // forbidden here: not an attempt
  }
  std::vector<Evaluation> evals;
  if (cands.size() == 1 && cands[0].lowering.rfind("llm:", 0) == 0)
    evals = {validate_with_fixes(c, req, cands[0], step)};
  else
    evals = evaluate_settings(c, cands, step);
  size_t b = best_of(evals);
  const Candidate &cand = cands[b];
  const Evaluation &eval = evals[b];
  step.lowering = cand.lowering;
  step.params = cand.params;
  step.compiled = eval.compiled;
  step.validated = eval.validated && eval.sanitizer_clean;
  if (!step.validated && step.error.empty()) step.error = failure_of(eval).substr(0, 2000);
  step.candidate_median_ms = step.validated ? eval.timing.median_ms : 0;
  step.outcome = classify(eval, pos.timing, c.options.noise);
  step.speedup = step.outcome == Outcome::Failed ? 0 : speedup_of(pos.timing, eval.timing);
  step.total_speedup = step.outcome == Outcome::Failed ? 0 : speedup_of(c.baseline.timing, eval.timing);
  step.reward = reward(step.outcome, step.speedup, step.predicted);
  update_policy(c, option, pos.state, step);
  update_parameters(c, option, cands, evals, pos.timing, step.predicted);
  if (step.outcome == Outcome::Improved) {
    pos.candidate = cand;
    pos.timing = eval.timing;
    pos.metrics = c.evaluator.profile(c.task, cand);
    step.metrics = pos.metrics;
    auto next = extract_state(c.policy, pos.metrics, c.options.state_threshold);
    if (next) pos.state = next->name;
  }
  step.next_state = pos.state;
  return StepEnd::Done;
}

void report(Context &c, long *done, long total, const std::string &label) {
  if (done) ++*done;
  if (c.hooks.progress && done) c.hooks.progress(*done, total, label);
}

TrajectoryRecord run_trajectory(Context &c, int index, const Position &start, Rng rng, KernelResult &result,
                                Evaluation &best_eval, long *done, long total) {
  TrajectoryRecord t{c.task.kernel.hash, c.task.kernel.qualified_name, c.task.arch, index, 0, 0, {}, 1, {}, 0, "depth"};
  t.seed = c.options.seed;
  t.started = cache::now_seconds();
  Position pos = start;
  std::set<std::string> tried;
  int flat = 0, d = 0;
  for (; d < c.options.depth; ++d) {
    if (c.budget.exhausted(c.options)) {
      t.stop_reason = "budget";
      break;
    }
    if (out_of_time(c)) {
      t.stop_reason = "time";
      break;
    }
    StepRecord step;
    step.index = d;
    StepEnd end;
    auto step_start = std::chrono::steady_clock::now();
    while ((end = run_step(c, pos, rng, tried, step, index)) == StepEnd::Skip) {
      step = StepRecord{};
      step.index = d;
    }
    if (end == StepEnd::NoCandidates) {
      t.stop_reason = "no-candidates";
      break;
    }
    step.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start).count();
    t.usage += step.usage;
    t.gpu_seconds += step.gpu_seconds;
    t.steps.push_back(step);
    report(c, done, total, c.task.kernel.qualified_name);
    if (step.outcome == Outcome::Improved && step.total_speedup > t.best_speedup) t.best_speedup = step.total_speedup;
    if (step.outcome == Outcome::Improved && step.total_speedup > result.speedup) {
      result.speedup = step.total_speedup;
      result.best = pos.candidate;
      result.best_trajectory = index;
      best_eval = Evaluation{};
      best_eval.compiled = best_eval.validated = true;
      best_eval.timing = pos.timing;
      best_eval.metrics = pos.metrics;
    }
    bool gained = step.outcome == Outcome::Improved && step.speedup - 1.0 >= c.options.early_stop_gain;
    flat = gained ? 0 : flat + 1;
    if (flat >= c.options.step_patience) {
      t.stop_reason = "early-stop";
      ++d;
      break;
    }
  }
  for (; d < c.options.depth && done; ++d)
    ++*done; // skipped steps count as done for the ETA
  return t;
}

// Why a confirmation run failed, in one line: the baseline's or the
// candidate's error, or its compile / validation log.
std::string confirmation_failure(const Expected<Measurement> &baseline, const Expected<Evaluation> &best) {
  std::string why = !baseline              ? "baseline: " + baseline.error().message
                    : !best                ? best.error().message
                    : !best->error.empty() ? best->error
                    : !best->compiled      ? "does not compile: " + best->compile_log
                                           : "does not validate again: " + best->validation_log;
  std::replace(why.begin(), why.end(), '\n', ' ');
  return why.substr(0, 200);
}

// Re-measures the baseline and the best candidate and decides whether the
// best goes into the variant cache.
void finish(Context &c, KernelResult &result) {
  if (!result.best) {
    result.verdict = "no validated candidate beat the baseline";
    return;
  }
  Timing base = c.baseline.timing;
  if (c.options.confirm) {
    auto b = c.evaluator.baseline(c.task);
    auto e = std::move(c.evaluator.evaluate(c.task, {*result.best}).front());
    if (!b || !e || !e->validated || !e->compiled) {
      result.verdict = "confirmation run failed: " + confirmation_failure(b, e);
      return;
    }
    c.budget.gpu_seconds += b->gpu_seconds + e->gpu_seconds;
    base = b->timing;
    result.best_eval = *e;
  }
  std::string report;
  auto clean = c.evaluator.sanitize(c.task, *result.best, report);
  result.best_eval.sanitizer_ran = clean && !report.empty();
  if (!clean || !*clean) {
    result.best_eval.sanitizer_clean = false;
    result.verdict = "compute-sanitizer: " + (clean ? report : clean.error().message).substr(0, 300);
    return;
  }
  result.speedup = speedup_of(base, result.best_eval.timing);
  if (!significantly_faster(base, result.best_eval.timing, c.options.noise)) {
    result.verdict = "speedup within measured noise";
    return;
  }
  if (!c.hooks.store_variant) {
    result.verdict = "validated and faster (not stored)";
    return;
  }
  Measurement m = c.baseline;
  m.timing = base;
  Status st = c.hooks.store_variant(c.task, *result.best, m, result.best_eval, result.best_trajectory);
  result.stored = static_cast<bool>(st);
  result.verdict = st ? "stored" : "variant cache: " + st.error().message;
}

} // namespace

nlohmann::json to_json(const TrajectoryRecord &t) {
  nlohmann::json steps = nlohmann::json::array();
  for (const StepRecord &s : t.steps)
    steps.push_back({{"index", s.index},
                     {"state", s.state},
                     {"optimization", s.option},
                     {"lowering", s.lowering},
                     {"explored", s.explored},
                     {"outcome", outcome_name(s.outcome)},
                     {"speedup", s.speedup},
                     {"total_speedup", s.total_speedup},
                     {"predicted", s.predicted},
                     {"reward", s.reward},
                     {"next_state", s.next_state},
                     {"fix_rounds", s.fix_rounds},
                     {"candidates", s.candidates},
                     {"params", s.params},
                     {"error", s.error},
                     {"input_tokens", s.usage.input_tokens},
                     {"output_tokens", s.usage.output_tokens},
                     {"cost", s.usage.cost},
                     {"gpu_seconds", s.gpu_seconds}});
  return {{"kernel_hash", t.kernel_hash},
          {"kernel", t.kernel_name},
          {"arch", t.arch},
          {"index", t.index},
          {"seed", t.seed},
          {"steps", steps},
          {"best_speedup", t.best_speedup},
          {"input_tokens", t.usage.input_tokens},
          {"output_tokens", t.usage.output_tokens},
          {"cost", t.usage.cost},
          {"gpu_seconds", t.gpu_seconds},
          {"stop_reason", t.stop_reason}};
}

Expected<KernelResult> optimize_kernel(const KernelTask &task, Evaluator &evaluator, Policy &policy, Lowerer &lowerer,
                                       const LoopOptions &options, Budget &budget, const LoopHooks &hooks, long *done,
                                       long total) {
  auto base = evaluator.baseline(task);
  if (!base) return base.error();
  budget.gpu_seconds += base->gpu_seconds;
  KernelResult result;
  result.baseline = *base;
  Context c{task, evaluator, policy, lowerer, options, budget, hooks, result.baseline, {}, clock_now(hooks)};
  auto state = extract_state(policy, base->metrics, options.state_threshold);
  if (!state) return state.error();
  Position start{Candidate{task.kernel.source, {}, "original"}, base->timing, base->metrics, state->name};
  Rng root = Rng(options.seed).fork(hash64(task.kernel.hash + "/" + task.arch));
  int flat_trajectories = 0;
  long planned_end = done ? *done + static_cast<long>(options.trajectories) * options.depth : 0;
  std::vector<TrajectoryRecord> window;
  for (int w = 0; w < options.trajectories; ++w) {
    if (budget.exhausted(options) || out_of_time(c)) break;
    double before = result.speedup;
    TrajectoryRecord t = run_trajectory(c, w, start, root.fork(w), result, result.best_eval, done, total);
    if (hooks.store_trajectory) {
      Status st = hooks.store_trajectory(t);
      if (!st) log_line("kbcc optimize: trajectory not stored: " + st.error().message);
    }
    result.trajectories.push_back(t);
    window.push_back(t);
    if (window.size() > static_cast<size_t>(options.gradient_window)) window.erase(window.begin());
    bool last = w + 1 == options.trajectories;
    if (hooks.learn && !budget.exhausted(options) && ((w + 1) % options.gradient_every == 0 || last)) {
      auto u = hooks.learn(policy, window);
      if (u) {
        budget.tokens += u->tokens();
        budget.cost += u->cost;
      } else {
        log_line("kbcc optimize: textual-gradient step skipped: " + u.error().message);
      }
    }
    flat_trajectories = result.speedup / before - 1.0 >= options.early_stop_gain ? 0 : flat_trajectories + 1;
    if (t.stop_reason == "no-candidates" && t.steps.empty()) break;
    if (flat_trajectories >= options.trajectory_patience) break;
  }
  if (done && *done < planned_end) {
    *done = planned_end;
    if (hooks.progress) hooks.progress(*done, total, task.kernel.qualified_name);
  }
  finish(c, result);
  return result;
}

} // namespace kbcc::agent
