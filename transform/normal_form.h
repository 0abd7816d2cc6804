// The normal form of a kernel: the same computation, written the way the
// structural transforms read kernels. Each rewrite is exact: the form
// executes the kernel's operations in the kernel's order.
//
// Loop hints dropped. The `#pragma unroll` (`unroll N`, `nounroll`,
// `clang loop ...`) lines above a loop are removed: they steer only how nvcc
// unrolls the loop, and the transforms read the loop under them.
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
// While loops. `T v = A; while (C) { BODY v++; }` (also ++v, v--, --v,
// v op= K and v = v op K with op one of + - * / % << >>, K free of v and of
// side effects), where T is an integer type, BODY has no `continue` of the
// loop and does not assign v, and no statement after the loop names v,
// becomes `for (T v = A; C; v++) { BODY }`: the loop the transforms read
// (a block's tree reduction halving its stride is one).
//
// Accumulators in registers. `P[E] = V;`, a statement of a block followed,
// in the same block, by a loop that accumulates into P[E] (`P[E] += ...`),
// becomes `T P_acc_N = V;`, with `P_acc_N` for P[E] in the loop and
// `P[E] = P_acc_N;` after it: the reduction the transforms read, and what
// nvcc cannot do itself, since a store through P might change what the
// loop's other loads read. Done when:
//   - P is a pointer variable the kernel never assigns, to an arithmetic,
//     non-volatile type; E has no side effect, call or load;
//   - the statements between the store and the loop are declarations and
//     expressions that do not name P, write no memory and assign none of
//     E's variables;
//   - in the loop, every reference to P is P[E], whose address it does not
//     take; it writes no other memory (no call that may), reads nothing
//     through P's parameter again or through a pointer the kernel assigns,
//     assigns none of E's variables, and has no return, goto, barrier,
//     atomic, warp operation, inline assembly or call kbcc cannot see.
// Pointer parameters other than P's are taken not to overlap P's elements,
// as every structural transform takes read-only arrays not to be written.
#pragma once

#include "support/expected.h"
#include "transform/ast.h"

namespace kbcc::transform {

// `k`'s kernel in normal form, parsed in its unit. Errors: "no-form" when
// no rewrite applies (no loop hint, nothing to inline, no while loop to
// write as a for loop, no accumulator to keep in a register);
// "not-applicable" when the form does not parse.
Expected<KernelAst> normal_form(const KernelAst &k);

} // namespace kbcc::transform
