// Records every macro use in user code while a unit is preprocessed, so the
// kernel hash can include the definition of each macro its text uses
// (expansions, defined(), #ifdef), nested expansions included.
#pragma once

#include "tooling/source_range.h"

#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"

#include <memory>
#include <string>
#include <vector>

namespace kbcc::tooling {

struct MacroUse {
  clang::FileID file;
  unsigned offset = 0; // where the use was written (outermost expansion)
  std::string name;
  std::string definition;    // "(params) tokens", "<undefined>", or the value of a builtin such as __LINE__
  bool user_defined = false; // defined by a #define in a user file (not a system header, not -D)
};

struct MacroUses {
  std::vector<MacroUse> uses; // in the order seen
  // Uses written inside `range`.
  std::vector<const MacroUse *> in(const FileRange &range) const;
};

// A PPCallbacks that appends to `sink` (which must outlive the preprocessor).
std::unique_ptr<clang::PPCallbacks> make_macro_recorder(clang::Preprocessor &pp, MacroUses &sink);

} // namespace kbcc::tooling
