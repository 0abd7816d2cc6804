// A Scope over fixed values, for tests.
#pragma once
#include "launch/expr.h"

#include <map>

namespace kbcc::launch::test {

struct MapScope : Scope {
  std::map<std::string, int64_t> values;
  std::map<std::string, uint64_t> pointers;
  std::optional<int64_t> value(const std::string &n) const override {
    auto it = values.find(n);
    return it == values.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  std::optional<uint64_t> address(const std::string &n) const override {
    auto it = pointers.find(n);
    return it == pointers.end() ? std::nullopt : std::optional<uint64_t>(it->second);
  }
};

} // namespace kbcc::launch::test
