#include "tooling/kernel.h"

#include <cctype>

namespace kbcc::tooling {

int cuda_arch_number(const std::string &arch) {
  auto us = arch.find('_');
  if (us == std::string::npos) return 0;
  int n = 0;
  size_t i = us + 1;
  for (; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])); ++i)
    n = n * 10 + (arch[i] - '0');
  return i == us + 1 ? 0 : n * 10;
}

} // namespace kbcc::tooling
