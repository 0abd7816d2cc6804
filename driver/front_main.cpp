// The `kbcc` executable. It links no Clang, so it starts in milliseconds: it
// settles the compiles that need no parse itself (pass-through, cannot
// optimize, deferred registration) by exec'ing nvcc, and hands everything else
// — a compile whose unit must be parsed, every command, help — to kbcc-full,
// the executable next to it that has them all, with the same arguments.
#include "driver/compiler_mode.h"
#include "driver/find_nvcc.h"
#include "driver/invocation.h"
#include "driver/passthrough.h"
#include "support/log.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace kbcc;
using namespace kbcc::driver;

// kbcc-full next to this executable.
std::string full_executable() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : sibling_executable(self.string());
}

// Replaces this process with kbcc-full on `argv` (argv[0] kept: kbcc-full
// behaves as nvcc when invoked under that name). Returns only on failure.
void exec_full(char **argv) {
  std::string full = full_executable();
  if (!full.empty()) execv(full.c_str(), argv);
  log_line("cannot run kbcc-full (" + (full.empty() ? std::string("not found") : full) + "): " + std::strerror(errno));
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string invoked = std::filesystem::path(argv[0]).filename().string();
  std::string launcher;
  if (invoked != "nvcc" && !args.empty()) {
    if (is_launcher_argument(args[0])) {
      launcher = args[0];
      args.erase(args.begin());
    } else if (is_kbcc_request(args[0])) {
      exec_full(argv);
      std::fprintf(stderr, "kbcc: cannot run kbcc-full, which kbcc's commands need, next to this executable\n");
      return 127;
    }
  }
  return run_compiler_mode(
      args, launcher,
      [&](const Compilation &c, const Config &, const std::string &, const KbccOptions &o, cache::Counters &) {
        setenv(kParseDecidedEnv, o.speculate ? "1" : kParseDecidedNameMatch, 1);
        exec_full(argv);
        // Never break the build: without kbcc-full the compile is nvcc's.
        log_line("fallback (no-kbcc-full): " + c.unit.source + ": running nvcc unchanged");
        return exec_nvcc(c.unit.nvcc_argv);
      });
}
