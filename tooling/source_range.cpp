#include "tooling/source_range.h"

#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Lex/Lexer.h"

namespace kbcc::tooling {
using namespace clang;

namespace {

// The outermost declaration that owns `decl`'s text: a function or class
// template for a templated declaration.
const Decl *outer_decl(const Decl *decl) {
  if (const auto *fd = dyn_cast<FunctionDecl>(decl))
    if (const auto *tmpl = fd->getDescribedFunctionTemplate()) return tmpl;
  if (const auto *rd = dyn_cast<CXXRecordDecl>(decl))
    if (const auto *tmpl = rd->getDescribedClassTemplate()) return tmpl;
  return decl;
}

} // namespace

std::optional<FileRange> decl_file_range(const Decl *decl, const SourceManager &sm, const LangOptions &lang) {
  const Decl *outer = outer_decl(decl);
  SourceRange r = outer->getSourceRange();
  if (r.isInvalid()) return std::nullopt;
  SourceLocation b = sm.getExpansionRange(r.getBegin()).getBegin();
  SourceLocation e = sm.getExpansionRange(r.getEnd()).getEnd();
  e = Lexer::getLocForEndOfToken(e, 0, sm, lang);
  if (b.isInvalid() || e.isInvalid()) return std::nullopt;
  auto [bf, bo] = sm.getDecomposedLoc(b);
  auto [ef, eo] = sm.getDecomposedLoc(e);
  if (bf != ef || eo < bo) return std::nullopt;
  return FileRange{bf, bo, eo};
}

std::string canonical_tokens(const FileRange &range, const SourceManager &sm, const LangOptions &lang) {
  bool invalid = false;
  StringRef buffer = sm.getBufferData(range.file, &invalid);
  if (invalid || range.end > buffer.size()) return {};
  Lexer lexer(sm.getLocForStartOfFile(range.file), lang, buffer.begin(), buffer.begin() + range.begin, buffer.end());
  lexer.SetCommentRetentionState(false);
  std::string out;
  bool in_directive = false;
  Token tok;
  for (bool at_end = false; !at_end;) {
    at_end = lexer.LexFromRawLexer(tok);
    if (tok.is(tok::eof)) break;
    unsigned offset = sm.getFileOffset(tok.getLocation());
    if (offset >= range.end) break;
    if (tok.isAtStartOfLine()) {
      bool directive = tok.is(tok::hash);
      if ((directive || in_directive) && !out.empty())
        out += '\n';
      else if (!out.empty())
        out += ' ';
      in_directive = directive;
    } else if (!out.empty()) {
      out += ' ';
    }
    out.append(buffer.data() + offset, tok.getLength());
  }
  return out;
}

std::string range_text(const FileRange &range, const SourceManager &sm) {
  bool invalid = false;
  StringRef buffer = sm.getBufferData(range.file, &invalid);
  if (invalid || range.end > buffer.size()) return {};
  return buffer.substr(range.begin, range.end - range.begin).str();
}

PrintingPolicy name_policy(const LangOptions &lang) {
  PrintingPolicy policy(lang);
  policy.AnonymousTagLocations = false;
  return policy;
}

std::string strip_locations(std::string name) {
  size_t at = 0;
  while ((at = name.find(" at ", at)) != std::string::npos) {
    size_t open = name.rfind('(', at), close = name.find(')', at);
    bool located = open != std::string::npos && close != std::string::npos && name.find(':', at) < close &&
                   name.find('(', at) > close;
    if (located)
      name.erase(at, close - at);
    else
      at += 4;
  }
  return name;
}

bool in_system_header(const Decl *decl, const SourceManager &sm) {
  SourceLocation loc = sm.getExpansionLoc(decl->getLocation());
  return loc.isInvalid() || sm.isInSystemHeader(loc);
}

} // namespace kbcc::tooling
