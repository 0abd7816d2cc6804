// Compiler mode's shared front end (driver/compiler_mode.h): no Clang here.
#include "driver/compiler_mode.h"

#include "driver/deferral.h"
#include "driver/find_nvcc.h"
#include "driver/passthrough.h"
#include "support/log.h"

#include <cstdio>
#include <cstdlib>

namespace kbcc::driver {
namespace {

std::string env_or_empty(const char *name) {
  const char *v = getenv(name);
  return v ? v : "";
}

// Settles a compilation without a parse when deferred registration allows
// it; otherwise hands it to `parse`.
int compile(const Compilation &c, const Config &config, const std::string &nvcc, const KbccOptions &o,
            const ParsePath &parse) {
  cache::Counters stats;
  if (const char *decided = getenv(kParseDecidedEnv)) { // kbcc decided already: parse
    KbccOptions handed = o;
    handed.speculate = std::string(decided) != kParseDecidedNameMatch;
    unsetenv(kParseDecidedEnv);
    return parse(c, config, nvcc, handed, stats);
  }
  Deferral deferral = decide_deferral(config, c.unit);
  say(o, deferral.why);
  if (!deferral.defer) {
    KbccOptions parsing = o;
    parsing.speculate = !deferral.name_match;
    return parse(c, config, nvcc, parsing, stats);
  }
  // Nothing to substitute: nvcc alone now, the registration later.
  stats[cache::kCompilations] += 1;
  stats[cache::kDeferred] += 1;
  if (deferral.record && !o.dry_run) record_pending(config, c.unit);
  flush_stats(config, stats);
  if (o.dry_run) return print_command(c.unit.nvcc_argv), 0;
  return exec_nvcc(c.unit.nvcc_argv);
}

} // namespace

void say(const KbccOptions &o, const std::string &msg) {
  if (o.verbose) std::fprintf(stderr, "kbcc: %s\n", msg.c_str());
}

void flush_stats(const Config &config, const cache::Counters &stats) {
  if (stats.empty()) return;
  if (auto st = cache::add_stats(config.dir(), stats); !st) log_line("cannot update statistics: " + st.error().message);
}

int run_compiler_mode(const std::vector<std::string> &nvcc_args, const std::string &launcher_nvcc,
                      const ParsePath &parse) {
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
  if (auto *c = std::get_if<Compilation>(&parsed)) return compile(*c, config, *nvcc, o, parse);
  cache::Counters stats;
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
