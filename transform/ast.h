// A kernel as Clang sees it for a transform: its unit parsed on the device
// side (the flags of its build), the kernel's FunctionDecl, and the text of
// its definition with helpers that map AST nodes to offsets in that text.
#pragma once

#include "support/expected.h"
#include "tooling/request.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

#include <memory>
#include <string>

namespace clang {
class ASTUnit;
}

namespace kbcc::transform {

class KernelAst {
public:
  ~KernelAst();
  KernelAst(KernelAst &&) noexcept;
  KernelAst &operator=(KernelAst &&) noexcept;

  const clang::FunctionDecl *kernel() const { return kernel_; }
  clang::ASTContext &context() const;
  const clang::SourceManager &sources() const;
  // The text of the kernel's definition (what a variant replaces).
  const std::string &source() const { return source_; }
  // The real arch the unit was parsed for ("sm_90").
  const std::string &arch() const { return request_.arch; }
  // Offset of `loc` in source(), when it is written inside the definition
  // (not in a macro expansion); npos otherwise.
  size_t offset(clang::SourceLocation loc) const;
  // Offsets of the first character and one past the last token of `range`.
  bool span(clang::SourceRange range, size_t &begin, size_t &end) const;
  // The same, with whole macro invocations at the ends of `range` included
  // (`i < N`, `blockIdx.x * BLOCK + threadIdx.x`); false when an end lies
  // inside a macro's expansion.
  bool file_span(clang::SourceRange range, size_t &begin, size_t &end) const;
  // The definition's text of a node, whole macro invocations at its ends
  // included (`N` for a bound written `N`), or "" when it is not written
  // there (an end inside a macro's expansion).
  std::string text(clang::SourceRange range) const;
  // The unit parsed again as before, with `definition` in place of the
  // kernel's definition (which must define the same kernel).
  Expected<KernelAst> reparsed(const std::string &definition) const;
  // What the parse read: the unit's path, arch, flags and text (equal keys,
  // equal parses).
  std::string parse_key() const;

private:
  friend Expected<KernelAst> parse_kernel(const tooling::ParseRequest &, const std::string &, const std::string &);
  KernelAst() = default;
  std::unique_ptr<clang::ASTUnit> unit_;
  const clang::FunctionDecl *kernel_ = nullptr;
  std::string source_;
  tooling::ParseRequest request_;
  std::string unit_text_; // the text parsed
  clang::FileID file_;
  unsigned begin_ = 0; // offset of the definition in its file
};

// Offset where text may go before statement `s` of `k` (before the line of
// a #pragma written on it); npos when it is written in a macro.
size_t statement_begin(const KernelAst &k, const clang::Stmt *s);
// Offset just past statement `s` of `k`, its ';' included (past a whole
// macro invocation that ends it); npos when it ends inside a macro.
size_t statement_end(const KernelAst &k, const clang::Stmt *s);

// Parses `text` (the unit at request.source) as `request` says, on the
// device side. Errors: no shims, or clang stopped at a fatal error.
Expected<std::unique_ptr<clang::ASTUnit>> parse_unit(const tooling::ParseRequest &request, const std::string &text);

// Parses `text` (the unit at request.source) as `request` says and finds the
// definition of the non-template kernel named `kernel` (unqualified; the first
// kernel when empty), or of the explicit specialization `kernel` names when
// it has template arguments ("k<float>", transform/specialize.h). Errors: the unit does not parse (fatal error), no
// such kernel, or its definition is not written in the unit.
Expected<KernelAst> parse_kernel(const tooling::ParseRequest &request, const std::string &text,
                                 const std::string &kernel);

} // namespace kbcc::transform
