#include "driver/command.h"

#include <algorithm>

namespace kbcc::driver {

std::vector<Command> &commands() {
  static std::vector<Command> all;
  return all;
}

CommandRegistrar::CommandRegistrar(Command c) {
  auto &all = commands();
  all.push_back(c);
  std::sort(all.begin(), all.end(), [](const Command &a, const Command &b) { return std::string(a.name) < b.name; });
}

const Command *find_command(const std::string &name) {
  for (const auto &c : commands())
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace kbcc::driver
