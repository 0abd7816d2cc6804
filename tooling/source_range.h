// Byte ranges of declarations in their files, and the canonical token text
// of such a range (raw lexer tokens: no whitespace, no comments).
#pragma once

#include "clang/AST/DeclBase.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/Basic/SourceManager.h"

#include <optional>
#include <string>

namespace kbcc::tooling {

struct FileRange {
  clang::FileID file;
  unsigned begin = 0, end = 0; // [begin, end) byte offsets in `file`
  bool contains(const FileRange &other) const { return file == other.file && begin <= other.begin && other.end <= end; }
};

// The written extent of `decl` (template header and leading attributes
// included), mapped to the file where its text is; nullopt when it spans files.
std::optional<FileRange> decl_file_range(const clang::Decl *decl, const clang::SourceManager &sm,
                                         const clang::LangOptions &lang);

// The tokens of `range`, separated by one space; preprocessor directive lines
// are kept on lines of their own so that their meaning survives.
std::string canonical_tokens(const FileRange &range, const clang::SourceManager &sm, const clang::LangOptions &lang);

// The raw bytes of `range`.
std::string range_text(const FileRange &range, const clang::SourceManager &sm);

// The printing policy for names kbcc stores or hashes: no source locations
// (a lambda prints as "(lambda)"), so names do not depend on where a checkout is.
clang::PrintingPolicy name_policy(const clang::LangOptions &lang);

// `name` without the source locations clang prints for unnamed entities in
// some places even under name_policy(): "~(lambda at /a/b.cu:9:27)" -> "~(lambda)".
std::string strip_locations(std::string name);

// Whether `decl` was written in a system header (CUDA, CCCL, the C++ library).
bool in_system_header(const clang::Decl *decl, const clang::SourceManager &sm);

} // namespace kbcc::tooling
