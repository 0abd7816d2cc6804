// Compiler mode: kbcc in place of nvcc. Loads the configuration, finds the
// real nvcc, classifies the command, and either passes it through exactly or
// runs the compile pipeline (speculatively alongside nvcc on the original).
#include "cache/stats.h"
#include "driver/args.h"
#include "driver/command.h"
#include "driver/compile_pipeline.h"
#include "driver/deferral.h"
#include "driver/depfile.h"
#include "driver/find_nvcc.h"
#include "driver/kbcc_options.h"
#include "driver/passthrough.h"
#include "support/config.h"
#include "support/log.h"

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unistd.h>

namespace kbcc::driver {
namespace {

void say(const KbccOptions &o, const std::string &msg) {
  if (o.verbose) std::fprintf(stderr, "kbcc: %s\n", msg.c_str());
}

void flush_stats(const Config &config, const cache::Counters &stats) {
  if (stats.empty()) return;
  if (auto st = cache::add_stats(config.dir(), stats); !st) log_line("cannot update statistics: " + st.error().message);
}

// Runs the original command: captured speculative run if there is one, else exec.
int run_original(std::optional<Process> &speculative, const std::vector<std::string> &argv) {
  if (speculative) return replay(speculative->wait());
  return exec_nvcc(argv);
}

// Runs the rewritten command; on failure falls back to the original one.
int run_rewritten(const Compilation &c, const CompilePlan &plan, const KbccOptions &o) {
  ProcessOptions po;
  po.stdin_inherit = true;
  auto r = run_process(plan.argv, po);
  if (!r || r->exit_code != 0) {
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

int compile(const Compilation &c, const Config &config, const std::string &nvcc, const KbccOptions &o,
            cache::Counters &stats) {
  stats[cache::kCompilations] += 1;
  Deferral deferral = decide_deferral(config, c.unit);
  say(o, deferral.why);
  if (deferral.defer) { // nothing to substitute: nvcc alone, the registration later
    stats[cache::kDeferred] += 1;
    if (deferral.record && !o.dry_run) record_pending(config, c.unit);
    flush_stats(config, stats);
    if (o.dry_run) return print_command(c.unit.nvcc_argv), 0;
    return exec_nvcc(c.unit.nvcc_argv);
  }
  std::optional<Process> speculative;
  if (config.get_bool("speculative") && !o.dry_run) {
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
  return run_rewritten(c, *plan, o);
}

std::string env_or_empty(const char *name) {
  const char *v = getenv(name);
  return v ? v : "";
}

} // namespace

int run_compiler_mode(const std::vector<std::string> &nvcc_args, const std::string &launcher_nvcc) {
  std::vector<std::string> args = nvcc_args;
  KbccOptions o = strip_kbcc_options(args);
  if (!o.unknown.empty()) {
    std::fprintf(stderr, "kbcc: unknown option '%s' (kbcc options: --kbcc-dry-run, --kbcc-verbose, --kbcc-disable)\n",
                 o.unknown.c_str());
    return 2;
  }
  auto loaded = Config::load();
  bool config_ok = loaded.has_value();
  Config config = config_ok ? *loaded : Config::with({});
  if (config_ok)
    set_log_path(config.get("log"));
  else
    log_line("bad configuration, running nvcc unchanged: " + loaded.error().message);

  std::string configured = config_ok ? config.get("nvcc") : env_or_empty("KBCC_NVCC");
  auto nvcc = find_nvcc(NvccSearch::current(configured, launcher_nvcc));
  if (!nvcc) {
    std::fprintf(stderr, "kbcc: %s\n", nvcc.error().message.c_str());
    log_line("no nvcc: " + nvcc.error().message);
    return 127;
  }
  std::vector<std::string> argv{*nvcc};
  argv.insert(argv.end(), args.begin(), args.end());
  if (!config_ok || o.disable || config.get_bool("disable")) {
    say(o, "disabled: running nvcc unchanged");
    if (o.dry_run) return print_command(argv), 0;
    return exec_nvcc(argv);
  }

  ParseResult parsed = parse_nvcc_command(argv, NvccEnvironment::current());
  cache::Counters stats;
  if (auto *c = std::get_if<Compilation>(&parsed)) return compile(*c, config, *nvcc, o, stats);
  if (auto *co = std::get_if<CannotOptimize>(&parsed)) {
    stats["cannot-optimize:" + co->reason] += 1;
    say(o, "cannot optimize (" + co->reason + "): " + co->detail);
  } else {
    stats["not-compilation"] += 1;
    say(o, "not a compilation (" + std::get<NotCompilation>(parsed).what + ")");
  }
  flush_stats(config, stats);
  if (o.dry_run) return print_command(argv), 0;
  return exec_nvcc(argv);
}

} // namespace kbcc::driver
