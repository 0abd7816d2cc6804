// kbcc-full's parse path of a compile: nvcc starts speculatively on the
// original command while the stages (extract, look up, record, rewrite) run;
// the rewritten unit is compiled when a variant is substituted, nvcc's own
// result is kept otherwise, and any internal failure falls back to it.
#include "driver/compile_pipeline.h"
#include "driver/compiler_mode.h"
#include "driver/depfile.h"
#include "driver/passthrough.h"
#include "support/log.h"

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

namespace kbcc::driver {
namespace {

// Runs the original command: captured speculative run if there is one, else exec.
int run_original(std::optional<Process> &speculative, const std::vector<std::string> &argv) {
  if (speculative) return replay(speculative->wait());
  return exec_nvcc(argv);
}

// Runs the rewritten command; on failure falls back to the original one,
// and counts the fallback.
int run_rewritten(const Compilation &c, const CompilePlan &plan, const KbccOptions &o, const Config &config) {
  ProcessOptions po;
  po.stdin_inherit = true;
  auto r = run_process(plan.argv, po);
  if (!r || r->exit_code != 0) {
    flush_stats(config, {{cache::kFallbacks, 1}});
    log_line("fallback: nvcc failed on the rewritten " + c.unit.source + "; running the original command");
    return exec_nvcc(c.unit.nvcc_argv);
  }
  if (c.depfile) {
    std::string user_dir = std::filesystem::path(c.unit.source).parent_path().string();
    std::string dep = (std::filesystem::path(c.unit.working_dir) / c.depfile_path).string();
    if (auto st = fix_depfile(dep, plan.temp_source, c.unit.source, plan.temp_dir, user_dir, plan.line_names); !st)
      log_line("depfile: " + st.error().message);
  }
  say(o, "compiled " + c.unit.source + " with substituted variants");
  return replay(*r);
}

// plan_compile, turning an escaped exception into an internal failure.
Expected<CompilePlan> plan_guarded(const Compilation &c, const Config &config, const std::string &nvcc,
                                   cache::Counters &stats) {
  try {
    return plan_compile(c, config, nvcc, stats);
  } catch (const std::exception &e) {
    return make_error(std::string("exception: ") + e.what(), "exception");
  } catch (...) {
    return make_error("unknown exception", "exception");
  }
}

// plan_guarded within `parse_timeout` seconds (0 = no limit). On a timeout the
// stages keep running in a detached thread and `abandoned` is set: the caller
// must then leave with _exit once nvcc's result is out.
Expected<CompilePlan> plan_with_timeout(const Compilation &c, const Config &config, const std::string &nvcc,
                                        cache::Counters &stats, bool &abandoned) {
  double limit = config.get_double("parse_timeout");
  if (limit <= 0) return plan_guarded(c, config, nvcc, stats);
  struct Shared {
    std::mutex m;
    std::condition_variable cv;
    std::optional<Expected<CompilePlan>> result;
    cache::Counters stats;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, c, config, nvcc] {
    cache::Counters local;
    auto r = plan_guarded(c, config, nvcc, local);
    std::lock_guard<std::mutex> lock(shared->m);
    shared->result.emplace(std::move(r));
    shared->stats = std::move(local);
    shared->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(shared->m);
  if (!shared->cv.wait_for(lock, std::chrono::duration<double>(limit), [&] { return shared->result.has_value(); })) {
    abandoned = true;
    return make_error("kernel extraction took longer than " + config.get("parse_timeout") + " s", "parse-timeout");
  }
  for (const auto &[k, v] : shared->stats)
    stats[k] += v;
  return std::move(*shared->result);
}

// The speculative nvcc runs in its own process group, which a Ctrl-C in the
// terminal does not reach; these handlers stop it when kbcc is interrupted.
volatile sig_atomic_t speculative_pgid = 0;

void stop_speculative_and_die(int sig) {
  if (speculative_pgid > 0) ::kill(-speculative_pgid, SIGKILL);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void guard_speculative(int pid) {
  speculative_pgid = pid;
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    std::signal(sig, stop_speculative_and_die);
}

// Leaves at once (the detached stage thread may still use static state).
[[noreturn]] void leave(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(code);
}

} // namespace

int compile_with_parse(const Compilation &c, const Config &config, const std::string &nvcc, const KbccOptions &o,
                       cache::Counters &stats) {
  stats[cache::kCompilations] += 1;
  std::optional<Process> speculative;
  if (!o.speculate) say(o, "no speculative nvcc: a kernel it names has a variant");
  if (config.get_bool("speculative") && o.speculate && !o.dry_run) {
    ProcessOptions po;
    po.stdin_inherit = true;
    po.timeout = std::chrono::hours(24); // gives the child its own process group, so kill() stops its tools
    if (auto p = spawn(c.unit.nvcc_argv, po)) {
      speculative = std::move(*p);
      guard_speculative(speculative->pid());
    }
  }
  bool abandoned = false;
  auto plan = plan_with_timeout(c, config, nvcc, stats, abandoned);
  if (!plan) {
    stats[cache::kFallbacks] += 1;
    flush_stats(config, stats);
    if (plan.error().code == "bad-snapshot" && config.get_bool("strict")) {
      // KBCC_STRICT: a pinned build must not silently build something else.
      if (speculative) speculative->kill();
      log_line("error (bad-snapshot, strict): " + c.unit.source + ": " + plan.error().message);
      std::fprintf(stderr, "kbcc: error: %s (KBCC_STRICT is set)\n", plan.error().message.c_str());
      return 1;
    }
    log_line("fallback (" + plan.error().code + "): " + c.unit.source + ": " + plan.error().message);
    say(o, "fallback: " + plan.error().message);
    if (o.dry_run) return print_command(c.unit.nvcc_argv), 0;
    if (abandoned) leave(run_original(speculative, c.unit.nvcc_argv));
    return run_original(speculative, c.unit.nvcc_argv);
  }
  flush_stats(config, stats);
  for (const auto &n : plan->notes)
    say(o, n);
  if (o.dry_run) return print_command(plan->argv), 0;
  if (!plan->substituted) return run_original(speculative, c.unit.nvcc_argv);
  if (speculative) speculative->kill();
  return run_rewritten(c, *plan, o, config);
}

} // namespace kbcc::driver
