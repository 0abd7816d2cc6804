// Virtual threads: one thread of a rewritten kernel runs `items` threads of
// the original, so that a launch with block.x / items threads computes what
// the original launch did, with `items` independent memory accesses in flight
// per thread. Virtual thread k of thread t is v = k * blockDim.x + t, which
// keeps a warp's accesses as contiguous as the original's.
//
// The kernel's body is split into phases at its top-level barriers and at
// the top-level statements its caller rewrites (collectives, which see the
// whole block and are written for `items` cells per thread). Every other run
// of top-level statements becomes a loop over the virtual threads, in which
// threadIdx.x reads v and blockDim.x reads blockDim.x * items. Between two
// barriers the original threads ran in no particular order, so running them
// one after another changes nothing, provided that:
//   - every barrier is a top-level statement (or inside a rewritten one);
//   - no warp-level operation, volatile access or inline assembly is left
//     (they assume the threads of a warp run together);
//   - a phase assigns only variables it declares itself (a parameter or an
//     earlier local, or an element or member of one, would be shared by the
//     virtual threads);
//   - a local that a later phase reads is a scalar, never assigned and
//     computed without memory or calls, so that the later phase can compute
//     it again;
//   - `return` appears only in the last phase, outside any loop or switch
//     (it becomes `continue`: that virtual thread is done).
#pragma once

#include "support/expected.h"
#include "transform/ast.h"
#include "transform/edits.h"

#include "clang/AST/Stmt.h"

#include <map>
#include <string>

namespace kbcc::transform {

// Why the body of `k` cannot run several threads per thread when the caller
// rewrites the top-level statements in `rewritten`; "" when it can.
std::string virtual_threads_refusal(const KernelAst &k, const std::map<const clang::Stmt *, std::string> &rewritten);

// Adds to `e` the edits that make every thread of `k` run `items` virtual
// threads, and replace each statement of `rewritten` by its text (written for
// the real threads: `items` cells each). Errors: not-applicable with the
// reason (virtual_threads_refusal, or code written in a macro).
Status add_virtual_threads(const KernelAst &k, long items, const std::map<const clang::Stmt *, std::string> &rewritten,
                           Edits &e);

} // namespace kbcc::transform
