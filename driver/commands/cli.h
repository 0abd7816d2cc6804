// Exit conventions shared by kbcc's subcommands: a usage error prints the
// usage text and exits 2; a named error prints "<command>: <message>" and exits 1.
#pragma once

#include <cstdio>
#include <string>

namespace kbcc::driver {

// Prints `usage` to stderr; returns exit status 2.
inline int print_usage_error(const char *usage) {
  std::fprintf(stderr, "%s\n", usage);
  return 2;
}

// Prints "<command>: <message>" to stderr; returns exit status 1.
inline int print_error(const std::string &command, const std::string &message) {
  std::fprintf(stderr, "%s: %s\n", command.c_str(), message.c_str());
  return 1;
}

} // namespace kbcc::driver
