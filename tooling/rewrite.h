// Source-level substitution of kernel definitions: each substituted byte
// range becomes
//   #if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == NNN   variant for NNN
//   #elif ...                                            further archs
//   #else                                                the original text
//   #endif
// or, for an explicit specialization of a template instance, the same chain
// without #else after the template.
// with #line directives so that diagnostics name the variant or the user's
// file and line. Everything outside the ranges is copied byte for byte.
#pragma once

#include "support/expected.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kbcc::tooling {

struct ArchVariant {
  int arch = 0;       // __CUDA_ARCH__ value, e.g. 900
  std::string name;   // file name given to #line for the variant, e.g. "kbcc-variant-1a2b"
  std::string source; // the replacement definition
};

struct Substitution {
  uint64_t begin = 0, end = 0;       // [begin, end) of the original definition in the unit
  std::vector<ArchVariant> variants; // at least one; archs distinct
  // The variants are explicit specializations of one instance of a kernel
  // template, placed at `begin` (== end, just past the template), which
  // stays as written: the chain has no #else.
  bool specialization = false;
};

// A variant's definition as it enters a unit: under `#line 1 "name"`, so
// diagnostics name the variant, and with nvcc's warnings about locals left
// unread or unused (177, 550) silenced around it, since a rewrite may leave
// locals of the original behind (`int tx = threadIdx.x;` once the index is
// rewritten), which are not the user's to see.
std::string variant_text(const std::string &name, const std::string &source);

// Text inserted at a byte offset of the unit (launch-changing variants and
// their adapters); a #line after it restores the user's numbering.
struct Insertion {
  uint64_t at = 0;
  std::string text;
};

// A short in-line edit (a launch site); the newlines of the replaced bytes
// are kept, so every later line keeps its number.
struct Replacement {
  uint64_t begin = 0, end = 0;
  std::string text;
};

struct UnitEdits {
  std::vector<Substitution> substitutions;
  std::vector<Insertion> insertions;
  std::vector<Replacement> replacements;
};

// Returns `text` (the unit whose path is `path`) with every edit applied.
// Errors: overlapping or out-of-range edits, duplicate archs.
Expected<std::string> rewrite_unit(const std::string &text, const std::string &path, UnitEdits edits);
Expected<std::string> rewrite_unit(const std::string &text, const std::string &path,
                                   std::vector<Substitution> substitutions);

} // namespace kbcc::tooling
