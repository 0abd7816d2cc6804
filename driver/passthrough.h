// Exact pass-through: nvcc runs with kbcc's arguments, environment, stdin,
// stdout and stderr, and kbcc returns its exit code.
#pragma once

#include "support/process.h"

#include <string>
#include <vector>

namespace kbcc::driver {

// Replaces kbcc with `argv` (argv[0] = the real nvcc). Returns only when the
// exec fails, after printing why; the value is the exit code to return (127).
int exec_nvcc(const std::vector<std::string> &argv);

// Writes a captured run's stdout and stderr unchanged and returns its exit code.
int replay(const ProcessResult &result);

// Prints `argv` as one shell-quoted line on stdout (--kbcc-dry-run).
void print_command(const std::vector<std::string> &argv);

} // namespace kbcc::driver
