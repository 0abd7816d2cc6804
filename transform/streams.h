// The streams of a 1-D global-index kernel: pointer parameters it reads or
// writes at the thread's own element, p[i] with i the global index variable,
// and whether each access runs for every in-range item (not behind a data-
// dependent branch), which vectorized_loads and cache_hint_streaming need.
#pragma once

#include "support/expected.h"
#include "transform/index_space.h"

#include <string>
#include <vector>

namespace kbcc::transform {

struct StreamAccess {
  const clang::ArraySubscriptExpr *expr = nullptr; // p[i]
  // `p[i] = value;` or `p[i] op= value;` as a whole statement; null for a load.
  const clang::BinaryOperator *store = nullptr;
  bool always = false;  // runs for every item that passes the bound guards
  bool in_loop = false; // inside a loop of the body
  // Whether the access reads p[i]: a load, or a compound store (`p[i] += v`).
  bool reads() const { return !store || store->isCompoundAssignmentOp(); }
};

struct Stream {
  const clang::ParmVarDecl *param = nullptr;
  std::vector<StreamAccess>
      accesses; // every reference to the parameter is one (a read or a whole-statement store), in source order
  unsigned element_bytes = 0; // sizeof(*param)
  // Whether every in-range item reads or writes its element: an access runs
  // for every item, or both sides of a branch access it (if/else, ?:).
  bool every_item = false;
  bool stored_every_item = false; // the same for its stores alone
  bool loads() const;         // only loads
};

struct StreamPlan {
  IndexSpace space;
  const clang::VarDecl *index = nullptr;   // i
  std::vector<const clang::Expr *> bounds; // every bound the guards check i against
  std::vector<Stream> streams;             // parameters referenced only as p[i]
  // Every memory write of the body: its offset in the kernel's text and, for
  // `lhs = value` and `lhs op= value`, the offsets of `value` (its operands
  // are read before the write).
  struct Write {
    size_t at = 0, value_begin = 0, value_end = 0;
  };
  std::vector<Write> writes;
};

// The streams of `k`; Error "not-applicable" when it is not a 1-D
// global-index kernel with one index variable (the idiom used only to
// initialise it) and a bound guard.
Expected<StreamPlan> stream_plan(const KernelAst &k);

// Whether load `l` runs before every store of the body, in evaluation order
// (earlier in the text, or inside the stored value's expression).
bool load_precedes_stores(const KernelAst &k, const StreamPlan &p, const StreamAccess &l);

// Whether `store`, a compound store `p[i] op= value` of the plan, is the
// body's first write in evaluation order: every other write begins after
// the whole statement (so its read of p[i] precedes them all, as a load
// that load_precedes_stores accepts does).
bool first_write(const KernelAst &k, const StreamPlan &p, const StreamAccess &store);

} // namespace kbcc::transform
