// Thread-per-item forms of kernels written in common ways the
// structural transforms (transform/index_space.h) do not read, with the
// launch that makes each compute what the original did. A transform written
// for one item per thread then applies to such a kernel through its form,
// its own launch mapping composed after the form's.
//
// Grid-stride loops. A kernel whose last statement is
//   for (i = <global index in x>; i < N; i += blockDim.x * gridDim.x) BODY
// (or the same as a `while` loop ending in the increment) computes BODY once
// for each item i < N, whatever the grid. Launched with ceil(N / block.x)
// blocks, `i = <global index>; if (i < N) BODY` computes the same when the
// items are independent, that is when, in the loop:
//   - nothing assigns the item variable but the increment, and no `break`,
//     `goto` or `return` leaves the loop (`continue` ends the item);
//   - it has no barrier or warp-level operation;
//   - every local declared before the loop that the loop assigns is written
//     before it is read in each item (nothing carries over to the next item);
//     no parameter is assigned;
//   - every array the loop stores to (other than by atomics) is accessed at
//     one index, the same expression everywhere, in which the item variable
//     occurs once, under + - * only, or which places the item's quotient r
//     and remainder c by one W in a grid of W columns, `r * S + c` with
//     W <= S or `c * S + r` with N written P * W and P <= S (distinct items
//     touch distinct elements);
//   - no user function called stores to memory.
// Nothing may follow the loop, nothing before it may store to memory, and N
// must be an expression of integer parameters (the new grid is computed
// from it).
//
// Nests of two grid-stride loops, over x and y (either outside), the inner
// one all of the outer's body but its start (a for loop's init, or for a
// while loop an assignment before it in the outer body), compute BODY once
// for each item (i, j): `i = <start>; j = <start>; if ((i < N) && (j < M))
// BODY` launched with ceil(N / block.x) x ceil(M / block.y) blocks computes
// the same under the conditions above for both variables, a store's index
// being `major * S + minor + C` with the minor variable's bound at most S.
//
// Block-stride loops. A kernel whose last statement is
//   for (T c = threadIdx.x; c < N; c += blockDim.x) BODY
// (a block per row, its threads striding the row) computes BODY once for
// each (block, c): `c = <global index in x>; if (c < N) BODY`, with every
// other blockIdx.x written blockIdx.y (gridDim.x: gridDim.y) and launched
// with ceil(N / block.x) x grid.x blocks, computes the same under the
// grid-stride conditions, when threadIdx.x and blockDim.x are read only in
// the loop's header (no global index either), no builtin of y or z is read,
// and the kernel has no barrier, warp-level operation or shared memory.
//
// Flattened 2-D grids. A kernel whose index is
//   (blockIdx.x + blockIdx.y * gridDim.x) * blockDim.x + threadIdx.x
// (a 1-D index over a grid made 2-D only to hold more blocks) computes the
// same with that index written blockIdx.x * blockDim.x + threadIdx.x and
// grid.x * grid.y blocks in x, when it reads blockIdx and gridDim nowhere
// else (and grid.z is 1).
//
// Constant block extents. A kernel whose index is blockIdx.d * C +
// threadIdx.d, C an integer constant (a macro's or constexpr's value), is
// the global-index idiom on launches whose block.d is C: its form writes
// blockDim.d for C, with that precondition and the launch kept.
//
// Indexes split into a row and a column. A 1-D kernel whose index
// `T i = <global index in x>` (nothing assigns it) is read as `i / W` and
// `i % W`, W an expression of integer parameters the same everywhere,
// computes the same on a 2-D grid of W columns: `col` and `row` become the
// global indexes in x and y (a declaration `T r = i / W;` or `T c = i % W;`
// at the top level of the body or of its work block, every variable it
// declares a row or a column, moves up, keeping its name; otherwise new
// variables hold them; `i - r * W` with r holding `i / W` is a column too),
// every other read of `i` reads `(row * W + col)`, and a guard on `i < B`
// (or `i >= B` before a return) joined by `col < W` runs the same items,
// each once, when:
//   - the kernel reads builtins only in that index, and has no barrier,
//     warp-level operation or shared memory;
//   - the original launch is 1-D and covers every item below the bound
//     (grid.x * block.x >= B, the launch's precondition, with W >= 1);
//   - nothing before the guard touches memory, calls a function or divides
//     by anything but W or a non-zero constant: it runs for threads the
//     original did not have, and not for those past the bound it had.
// A bound written `P * W` becomes `row < P`, so the guard reads each
// dimension apart; a bound on the row variable counts too. Launched with
// blocks of 32 x ceil(block.x / 32) over ceil(W / 32) x rows; when `i`
// is read and 32 bits wide, a precondition keeps row * W + col in range.
// The form of a grid-stride loop whose items split gets this form on top
// (transform.h, Offer).
#pragma once

#include "launch/mapping.h"
#include "support/expected.h"
#include "transform/ast.h"

#include <string>

namespace kbcc::transform {

struct ItemsForm {
  std::string source;           // the kernel's definition, one item per thread
  launch::LaunchMapping launch; // its launch, relative to the original's
};

// The thread-per-item form of `k`. Errors: "no-form" when the kernel has
// neither a grid-stride loop over x (or a nest over x and y) nor a
// block-stride loop as its last statement, a flattened 2-D index nor a
// constant block extent; "not-applicable" with the reason
// when it has one but its form would compute something else (or it is
// written in a macro).
Expected<ItemsForm> items_form(const KernelAst &k);

// The form of a kernel that splits its index into a row and a column (the
// last form items_form tries); errors as items_form's.
Expected<ItemsForm> split_index_form(const KernelAst &k, const clang::CompoundStmt *body);

} // namespace kbcc::transform
