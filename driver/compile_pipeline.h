// The compile path of one CUDA translation unit: extract kernels per arch,
// look up variants, record the kernels, rewrite the unit when something is
// substituted. It decides which nvcc command runs; compiler_mode.cpp runs it.
#pragma once

#include "cache/stats.h"
#include "driver/args.h"
#include "support/config.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kbcc::driver {

struct CompilePlan {
  bool substituted = false;
  std::vector<std::string> argv; // the nvcc command to run (the original when nothing is substituted)
  std::string temp_source;       // the rewritten unit, when substituted
  std::string temp_dir;
  std::vector<std::string> line_names; // #line file names in the rewritten unit that are not files
  std::vector<std::string> notes;      // what happened, for --kbcc-verbose
};

// Runs the default stages (driver/stages.h factories) for `c`, with the
// toolchain of `nvcc`, and returns the command to run. An Error is an internal
// failure (its code names it); the caller then runs the original command.
// Counters for hits, misses and parses are added to `stats`.
Expected<CompilePlan> plan_compile(Compilation c, const Config &config, const std::string &nvcc,
                                   cache::Counters &stats);

// The stages plan_with_stages runs; the lookup is made after extraction.
struct PlanStages {
  Extractor &extractor;
  std::function<Expected<std::unique_ptr<VariantLookup>>()> make_lookup;
  UnitRewriter &rewriter;
};

// plan_compile with given stages (c.unit.toolchain already set).
Expected<CompilePlan> plan_with_stages(const Compilation &c, const Config &config, PlanStages stages,
                                       cache::Counters &stats);

// Deterministic location of a rewritten unit: /tmp/kbcc-<uid>/<content hash>/<basename>.
std::string rewritten_path(const std::string &text, const std::string &source);

// The original nvcc command with `temp_source` in place of the user's source
// and -I<directory of the user's source> first among the include paths.
std::vector<std::string> rewritten_command(const Compilation &c, const std::string &temp_source);

} // namespace kbcc::driver
