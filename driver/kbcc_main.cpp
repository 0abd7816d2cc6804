// kbcc-full's top-level dispatch: subcommand, help, launcher form or
// compiler form. (The `kbcc` executable, driver/front_main.cpp, hands it
// everything but the compiles that need no parse.)
#include "driver/command.h"
#include "driver/compiler_mode.h"
#include "driver/invocation.h"
#include "driver/registration.h"
#include "support/config.h"
#include "support/log.h"

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

namespace kbcc::driver {
namespace {

void print_help() {
  std::printf("kbcc - a drop-in replacement for nvcc that compiles in validated, faster kernel variants\n\n"
              "Usage:\n"
              "  kbcc <nvcc arguments>             compile exactly as nvcc would (compiler form)\n"
              "  kbcc <path/to/nvcc> <arguments>   the same, with an explicit nvcc (launcher form)\n"
              "  kbcc <command> [options]          run a kbcc command (kbcc <command> --help for details)\n\n"
              "Commands:\n");
  for (const auto &c : commands()) std::printf("  %-12s %s\n", c.name, c.summary);
  std::printf("\nkbcc options in compiler form (removed before nvcc runs):\n"
              "  --kbcc-dry-run     print the nvcc command(s) kbcc would run, and run nothing\n"
              "  --kbcc-verbose     print what kbcc does with this compile on stderr\n"
              "  --kbcc-disable     run nvcc unchanged for this compile\n\n"
              "Other:\n"
              "  kbcc --help        this text (nvcc's own help: kbcc nvcc --help)\n"
              "  kbcc --kbcc-version  kbcc's version (--version is nvcc's, for CMake)\n\n"
              "Configuration: KBCC_* environment variables or $KBCC_DIR/kbcc.conf; see `kbcc config --list`\n"
              "and docs/config.md.\n");
}

// Whether a command's own arguments (those before a `--` that starts another
// program's command line) hold --help or -h, at any position: `kbcc kb push
// --help` asks for help as `kbcc kb --help` does.
bool asks_for_help(const std::vector<std::string> &rest) {
  for (const std::string &a : rest) {
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

// Whether `command` with `args` reads the kernel registry (and so needs the
// units that builds compiled with deferred registration parsed first).
bool reads_registry(const std::string &command, const std::vector<std::string> &args) {
  static const std::set<std::string> always = {"capture", "optimize", "warm", "report", "replay"};
  if (always.count(command)) return true;
  std::string verb = args.empty() ? "" : args[0];
  if (command == "cache") return verb == "list" || verb == "show";
  if (command == "kb") return verb == "push" || verb == "sync";
  return false;
}

// Parses the units compiled with deferred registration (driver/registration.h),
// so the command sees every kernel built so far. Failures only log: the
// command then works with the registry as it is.
void complete_registry() {
  auto config = Config::load();
  if (!config) return; // the command reports a bad configuration itself
  set_log_path(config->get("log"));
  if (auto r = register_pending(*config, /*progress=*/true); !r)
    log_line("deferred registration: " + r.error().message);
}

}  // namespace

int kbcc_main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string invoked = std::filesystem::path(argv[0]).filename().string();
  if (invoked != "nvcc" && !args.empty()) {
    if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      print_help();
      return 0;
    }
    if (args[0] == "--kbcc-version") {
      std::printf("kbcc " KBCC_VERSION "\n");
      return 0;
    }
    if (const Command *c = find_command(args[0])) {
      std::vector<std::string> rest(args.begin() + 1, args.end());
      if (asks_for_help(rest)) { // help that was asked for: stdout, status 0
        std::printf("%s\n", c->usage);
        return 0;
      }
      if (reads_registry(c->name, rest)) complete_registry();
      return c->run(rest);
    }
    if (is_launcher_argument(args[0])) {
      std::string nvcc = args[0];
      args.erase(args.begin());
      return run_compiler_mode(args, nvcc, compile_with_parse);
    }
  }
  return run_compiler_mode(args, "", compile_with_parse);
}

}  // namespace kbcc::driver
