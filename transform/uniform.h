// Text of thread-invariant expressions, and splicing of a definition's text:
// what transforms that copy code into new places (the window's steps, a
// stencil's staging) need to write an expression once for the whole block.
#pragma once

#include "support/expected.h"
#include "transform/ast.h"

#include "clang/AST/Expr.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kbcc::transform {

// A replacement of [begin, end) of the definition's text.
struct Repl {
  size_t begin, end;
  std::string text;
};

// The text of [b, x) of the definition with the (disjoint) replacements
// inside it; on a bad edit, an #error line that fails the candidate's compile.
std::string spliced(const std::string &src, size_t b, size_t x, const std::vector<Repl> &repls);

// Replacements sorted by position (an insertion before a replacement at the
// same place), dropping those inside an earlier one.
std::vector<Repl> disjoint(std::vector<Repl> repls);

// Offsets of `s` in the definition, also when it is a whole macro expansion
// (`R` of `#define R 3`) or begins or ends with one (`i < N`): then the text
// has the macro's invocation.
bool span_of(const KernelAst &k, const clang::Stmt *s, size_t &b, size_t &x);

// What uniform_text writes in place of variables, and of whole expressions
// (`expr` returns the text replacing one, or nullopt to look inside it).
struct Subst {
  std::map<const clang::VarDecl *, std::string> vars;
  std::function<std::optional<std::string>(const clang::Expr *)> expr;
};

// Text of `e` computed the same by every thread: parameters, literals and
// locals whose one value is such text (inlined), with `subst` applied:
// locals never written, with their initializers, and locals declared without
// one and written once, by a top-level `v = rhs;` of the kernel's body that
// no reference precedes (value_of). nullopt otherwise.
std::optional<std::string> uniform_text(const KernelAst &k, const clang::Expr *e, const Subst &subst = {},
                                        int depth = 0);

// Whether every use of `array` in the kernel is the base of an element read.
bool only_read(const KernelAst &k, const clang::ParmVarDecl *array);

// The locals that `before` (statements copied once per item of a thread)
// declares at its top level: `values`, each to become one value per item,
// and `counters`, loop counters (loop_counter in `body`) that one variable
// of the thread serves. Error "not-applicable" naming the first that is not
// a plain scalar initialized with '=' (`where` says which statements, e.g.
// "before the loop").
struct PerItemLocals {
  std::vector<const clang::VarDecl *> values, counters;
  bool per_item(const clang::VarDecl *v) const;
};
Expected<PerItemLocals> per_item_locals(const clang::Stmt *body, const std::vector<const clang::Stmt *> &before,
                                        const std::string &where);
// Declarations of `locals` for a thread that runs `items` items: an array
// of `items` elements per value, one variable per counter.
std::string item_declarations(const KernelAst &k, const PerItemLocals &locals, long items);

// `t` as CUDA text, canonical and without qualifiers.
std::string type_text(clang::QualType t, const clang::ASTContext &ctx);

// The CUDA vector type of four `element`s (float4, int4, uint4) when
// `element` is a 4-byte float or integer; empty otherwise.
std::string vector_of(clang::QualType element);

// A block that copies the four elements of `from`, a `vec` (vector_of's
// type), into to[slot] .. to[slot + 3].
std::string unpack4(const std::string &vec, const std::string &from, const std::string &to, int slot);

// A store `P[E] = V;` that a group of items may make as one wider store:
// P a pointer parameter to a non-bool arithmetic builtin type, E and V free
// of side effects, calls, subscripts, member accesses, dereferences and
// globals (so they read no memory, and their order does not matter).
struct PlainStore {
  const clang::ParmVarDecl *array = nullptr;
  const clang::Expr *index = nullptr, *value = nullptr;
  clang::QualType element;
};
std::optional<PlainStore> plain_store(const clang::Stmt *s, const clang::ASTContext &ctx);

// The type that stores `bytes` bytes (4, 8 or 16) in one access: unsigned
// int, uint2, uint4; empty for other sizes.
std::string store_vector(long bytes);

} // namespace kbcc::transform
