// Subcommand registry of the kbcc executable. Each subcommand lives in
// driver/commands/<name>.cpp and registers itself with KBCC_COMMAND; `kbcc
// --help` is generated from this table, so it lists exactly what exists.
#pragma once

#include <string>
#include <vector>

namespace kbcc::driver {

struct Command {
  const char *name;     // e.g. "stats"
  const char *summary;  // one line for `kbcc --help`
  const char *usage;    // full usage text for `kbcc <name> --help`, options included
  int (*run)(const std::vector<std::string> &args);  // args exclude "kbcc <name>"
};

// All registered subcommands, sorted by name.
std::vector<Command> &commands();
const Command *find_command(const std::string &name);

struct CommandRegistrar {
  explicit CommandRegistrar(Command c);
};

}  // namespace kbcc::driver

#define KBCC_COMMAND_CONCAT2(a, b) a##b
#define KBCC_COMMAND_CONCAT(a, b) KBCC_COMMAND_CONCAT2(a, b)
// Registers a subcommand; use once per file at namespace scope.
#define KBCC_COMMAND(...)                                                                                            \
  static ::kbcc::driver::CommandRegistrar KBCC_COMMAND_CONCAT(kbcc_command_registrar_, __LINE__)(                     \
      ::kbcc::driver::Command{__VA_ARGS__})
