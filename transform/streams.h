// The streams of a 1-D global-index kernel: pointer parameters it reads or
// writes at the thread's own element, p[i] with i the global index variable,
// or at a field of the thread's own record of R elements, p[R * i + c] with
// constants R >= 2 and 0 <= c < R (interleaved pairs, RGB pixels, the gates
// of a cell); and whether each access runs for every in-range item (not
// behind a data-dependent branch), which vectorized_loads and
// cache_hint_streaming need.
#pragma once

#include "support/expected.h"
#include "transform/index_space.h"

#include <set>
#include <string>
#include <vector>

namespace kbcc::transform {

struct StreamAccess {
  const clang::ArraySubscriptExpr *expr = nullptr; // p[i]
  // `p[i] = value;` or `p[i] op= value;` as a whole statement; null for a load.
  const clang::BinaryOperator *store = nullptr;
  bool always = false;  // runs for every item that passes the bound guards
  bool in_loop = false; // inside a loop of the body
  unsigned field = 0;   // c of p[R * i + c]; 0 for p[i]
  // Whether the access reads p[i]: a load, or a compound store (`p[i] += v`).
  bool reads() const { return !store || store->isCompoundAssignmentOp(); }
};

struct Stream {
  const clang::ParmVarDecl *param = nullptr;
  std::vector<StreamAccess>
      accesses; // every reference to the parameter is one (a read or a whole-statement store), in source order
  unsigned element_bytes = 0; // sizeof(*param)
  unsigned record = 1;        // R: every access is p[R * i + c] (1: p[i])
  // Whether every in-range item reads or writes its element (each field of
  // its record): an access runs for every item, or both sides of a branch
  // access it (if/else, ?:).
  bool every_item = false;
  bool stored_every_item = false; // the same for its stores alone
  bool all_fields = true;         // every field 0 to R - 1 is accessed
  bool loads() const;             // only loads
};

struct StreamPlan {
  IndexSpace space;
  const clang::VarDecl *index = nullptr;   // i
  std::vector<const clang::Expr *> bounds; // every bound the guards check i against
  std::vector<Stream> streams;             // parameters referenced only as p[i], or only as p[R * i + c]
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
// (earlier in the text, or inside the stored value's expression), the
// writes that begin at an offset in `ignored` aside.
bool load_precedes_stores(const KernelAst &k, const StreamPlan &p, const StreamAccess &l,
                          const std::set<size_t> &ignored = {});

// Whether `store`, a compound store `p[i] op= value` of the plan, is the
// body's first write in evaluation order: every other write (those at an
// offset in `ignored` aside) begins after the whole statement (so its read
// of p[i] precedes them all, as a load that load_precedes_stores accepts does).
bool first_write(const KernelAst &k, const StreamPlan &p, const StreamAccess &store,
                 const std::set<size_t> &ignored = {});

} // namespace kbcc::transform
