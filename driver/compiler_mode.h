// Compiler mode (kbcc in place of nvcc), shared by the two executables:
// `kbcc`, which links no Clang and so starts in milliseconds, and
// `kbcc-full`, which has every command and the Clang parse. This part loads
// the configuration, finds the real nvcc, classifies the command, counts it,
// and settles every compile that needs no parse (pass-through, cannot
// optimize, deferred registration: driver/deferral.h) by exec'ing nvcc. A
// compile that must parse goes to the `parse` callback.
#pragma once

#include "cache/stats.h"
#include "driver/args.h"
#include "driver/kbcc_options.h"
#include "support/config.h"

#include <functional>
#include <string>
#include <vector>

namespace kbcc::driver {

// Compiles `c`, whose unit must be parsed now (kbcc-full: compile_with_parse;
// kbcc: hand the command to kbcc-full). Returns the exit status.
using ParsePath = std::function<int(const Compilation &c, const Config &config, const std::string &nvcc,
                                    const KbccOptions &o, cache::Counters &stats)>;

// `nvcc_args` are the arguments after the invoked name; `launcher_nvcc` is
// the nvcc given in launcher form, if any.
int run_compiler_mode(const std::vector<std::string> &nvcc_args, const std::string &launcher_nvcc,
                      const ParsePath &parse);

// kbcc-full's parse path: the speculative nvcc, extraction, lookup and
// rewrite (driver/compile_pipeline.h), falling back to the original command
// on any internal failure.
int compile_with_parse(const Compilation &c, const Config &config, const std::string &nvcc, const KbccOptions &o,
                       cache::Counters &stats);

// Set by kbcc when it hands a compile to kbcc-full because the unit must be
// parsed: kbcc-full then skips the same decision. Its value is
// kParseDecidedNameMatch when a variant's kernel is named in the unit (no
// speculative nvcc then), else "1".
inline constexpr const char *kParseDecidedEnv = "KBCC_PARSE_DECIDED";
inline constexpr const char *kParseDecidedNameMatch = "name-match";

// "kbcc: <msg>" on stderr under --kbcc-verbose.
void say(const KbccOptions &o, const std::string &msg);
// Adds `stats` to the counters of config.dir(); one log line on failure.
void flush_stats(const Config &config, const cache::Counters &stats);

} // namespace kbcc::driver
