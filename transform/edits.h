// Text edits of one kernel definition, applied together: replacements of
// byte ranges and insertions at offsets (several at one offset keep their
// order). Overlapping replacements are refused.
#pragma once

#include "support/expected.h"

#include <set>
#include <string>
#include <vector>

namespace kbcc::transform {

class Edits {
public:
  void replace(size_t begin, size_t end, std::string text);
  void insert(size_t at, std::string text) { replace(at, at, std::move(text)); }
  // `text` with every edit applied. Errors: overlapping edits, out of range.
  Expected<std::string> apply(const std::string &text) const;

private:
  struct Edit {
    size_t begin, end, order;
    std::string text;
  };
  std::vector<Edit> edits_;
};

// Offset just past the ';' that ends the statement whose text ends at `end`
// (whitespace and comments skipped), or `end` when no ';' follows.
size_t past_semicolon(const std::string &text, size_t end);

// Adds every identifier-like token of `text` (letters, digits and `_`, not
// starting with a digit) to `out`.
void identifiers(const std::string &text, std::set<std::string> &out);

} // namespace kbcc::transform
