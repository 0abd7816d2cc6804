// The loop nest that smem_tiling and register_blocking rewrite: a 2-D
// global-index kernel, one thread per output (row, col), whose reduction loop
// over k reads operands that depend on (row, k) and on (k, col).
//
// Legal when: builtins only in the x and y global indexes, held by one
// variable each (col, row); no barriers, warp operations, shared memory or
// atomics; the top level is: statements that touch no memory (but for an
// accumulator declared after the guard, alone, whose initializer only reads
// memory), at most one early-return guard (its terms each depend on row
// only, col only or neither), one counted loop over k whose bounds are the
// same for every thread, whose writes are accumulations and whose loads
// depend on (row, k), (k, col), k only, or neither, and then the statements
// that use the results.
// The guard may instead be the body's last statement `if (T1 && T2 ...) { ... }`
// holding the rest (the thread's work under its bounds check): its terms then
// say when the thread works.
#pragma once

#include "support/expected.h"
#include "transform/analysis.h"
#include "transform/ast.h"
#include "transform/index_space.h"

#include <algorithm>
#include <string>
#include <vector>

namespace kbcc::transform {

// A load of the reduction loop that a row or a column of outputs shares.
struct TileLoad {
  const clang::Expr *expr = nullptr; // the lvalue read
  char operand = 0;                  // 'A' (row, k), 'B' (k, col)
};

struct TilingPlan {
  IndexSpace space;
  const clang::VarDecl *row = nullptr, *col = nullptr;
  const clang::IfStmt *guard = nullptr;
  bool guard_keeps = false; // the guard is `if (T...) { ... }`: its terms hold for a working thread
  std::vector<const clang::Expr *> row_terms, col_terms, uniform_terms; // of the guard's disjunction (conjunction)
  const clang::CompoundStmt *scope = nullptr;                           // the block whose top level holds the loop
  CountedLoop loop;
  std::vector<Accumulation> accs; // the loop's accumulations
  std::vector<TileLoad> loads;
  std::vector<const clang::Stmt *> before; // statements before the loop, the guard excepted
  // Accumulators declared after the guard with an initializer that reads
  // memory (`float acc = bias[col];`): a rewrite reads it for working threads only.
  std::vector<const clang::VarDecl *> loaded_inits;
  bool loads_init(const clang::VarDecl *v) const {
    return std::find(loaded_inits.begin(), loaded_inits.end(), v) != loaded_inits.end();
  }
  std::vector<const clang::Stmt *> after; // statements after the loop
};

// The plan of `k`, or Error "not-applicable" with the reason.
Expected<TilingPlan> analyze_tiling(const KernelAst &k);

// Whether `e` depends on `var`, directly or through local variables' initializers.
bool depends_on(const clang::Expr *e, const clang::VarDecl *var);

// When the thread works as far as `terms` (of p's guard) say: "true && !(t1)
// && !(t2) ..." for an early-return guard (none holds), "true && (t1) && (t2)
// ..." for a guard holding the work (all hold).
std::string working(const KernelAst &k, const TilingPlan &p, const std::vector<const clang::Expr *> &terms);

// The text of p's guard to replace, [b, x): the whole `if (...) return;`, or
// `if (...) ` up to the opening brace of the block it holds.
bool guard_span(const KernelAst &k, const TilingPlan &p, size_t &b, size_t &x);

} // namespace kbcc::transform
