// The normal form of a kernel: the same computation, written the way the
// structural transforms read kernels. Each rewrite is exact: the form
// executes the kernel's operations in the kernel's order.
//
// Inlined helpers. A call of a user __device__ function F, in a statement S
// of the kernel, becomes F's body placed before S, F's parameters declared
// as locals that the arguments initialize, and the call replaced by the value
// of F's final `return E;`. An argument that names a kernel variable of the
// parameter's type takes the parameter's place instead, when F never assigns
// the parameter (or it is a reference) and declares no local of that name.
// A call is inlined when:
//   - F is defined outside system headers, before the kernel or after it,
//     and is not a template, a member, variadic or recursive; it takes no
//     array parameter and has no default argument, and it returns neither a
//     reference nor `auto`;
//   - F's body has no goto, label, lambda, `this`, static or __shared__
//     local, and leaves only by its last statement (`return E;` or, for a
//     void F, nothing or `return;`); the parameters it names are not named
//     in macros;
//   - every name F uses from outside it is declared before the kernel, and
//     no local or parameter of the kernel has that name;
//   - S is a statement of a block, or the body or a branch of a loop, an
//     `if` or a `switch`; the call is evaluated whenever S runs and first
//     (not under ?: or the right of && or || and not in a loop's condition),
//     and the rest of S has no side effect outside calls but S's own
//     assignment or declaration (no ++, -- or other assignment; other calls
//     are sequenced indeterminately with this one, which may run first).
// F's top-level locals join the kernel's block when their names occur
// nowhere in the kernel; otherwise F's body goes in a block of its own and
// E into a new local. Calls that the inlined bodies make are inlined in
// turn, for a few rounds.
//
// While loops. `T v = A; while (C) { BODY v++; }` (also ++v, v += K,
// v = v + K), where BODY has no `continue` of the loop and does not assign v
// and no statement after the loop names v, becomes
// `for (T v = A; C; v++) { BODY }`: the counted loop the transforms read.
#pragma once

#include "support/expected.h"
#include "transform/ast.h"

namespace kbcc::transform {

// `k`'s kernel in normal form, parsed in its unit. Errors: "no-form" when
// neither rewrite applies (nothing to inline, no while loop to write as a
// for loop); "not-applicable" when the form does not parse.
Expected<KernelAst> normal_form(const KernelAst &k);

} // namespace kbcc::transform
