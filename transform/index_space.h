// The index space of a kernel written with the global-index idiom
// (blockIdx.d * blockDim.d + threadIdx.d): which dimensions it uses, where the
// idiom occurs, and the bounds its guards check, so a transform can launch it
// differently and still cover exactly the threads the original had.
#pragma once

#include "launch/mapping.h"
#include "support/expected.h"
#include "transform/analysis.h"
#include "transform/ast.h"
#include "transform/edits.h"

#include <set>
#include <string>
#include <vector>

namespace kbcc::transform {

struct IndexSpace {
  int dims = 1;                         // 1: x only; 2: x and y; 3: x, y and z
  bool batch = false;                   // reads blockIdx.z / gridDim.z: a batch index the launch keeps
  bool batch_y = false;                 // reads blockIdx.y / gridDim.y in a kernel 1-D in the idiom: the same
  std::vector<GlobalIndex> occurrences; // every use of the idiom
  std::vector<std::string> bounds[3];   // guard bounds per dimension, in the mapping language
  std::set<std::string> bound_params;   // integer parameters those bounds read
  const clang::CompoundStmt *body = nullptr;
};

// Checks that the kernel reads CUDA builtins only through the idiom, in x
// (and y when `allow_2d`), and has no barriers, warp operations, shared
// memory, inline assembly, device-side launches or calls kbcc cannot see
// (atomics only when `allow_atomics`). Error "not-applicable" with the reason.
// With `allow_batch`, it may also read blockIdx.z and gridDim.z (a batch of
// x-y problems, one per z block), and, when it has no global index in y,
// blockIdx.y and gridDim.y (rows of x problems, one per y block, as a bias
// add or a per-sample layer writes them): a transform that keeps grid.y and
// grid.z, needs block.y == block.z == 1 (1-D) or block.z == 1 (2-D) and
// moves threads only within a block's problem keeps every thread's batch
// index. With `allow_3d` (and `allow_2d`), a kernel indexed in x, y and z
// is accepted too (dims 3; blockIdx.z is then no batch).
Expected<IndexSpace> index_space(const KernelAst &k, bool allow_2d, bool allow_atomics, bool allow_batch = false,
                                 bool allow_3d = false);

// The index space of a serial kernel: one that reads no CUDA builtin, so
// that every thread runs all of it, and has none of the effects index_space
// refuses (atomics only when `allow_atomics`). Launched as a single thread,
// it is one item: dims 1, no occurrences of the idiom, no guard bounds.
Expected<IndexSpace> serial_space(const KernelAst &k, bool allow_atomics);

// Preconditions of a launch mapping over `space` whose new launch covers the
// original's threads of dimension `dim` in units of `unit` threads: the unit
// divides the original extent, or a guard bound shows the extra threads idle.
std::string coverage_precondition(const IndexSpace &space, int dim, long unit);

// grid/block extents of the dimensions the kernel does not use must be 1
// (grid.y and grid.z stay as launched for a batch), and no dynamic shared
// memory: the preconditions saying so.
std::vector<std::string> fixed_dims_preconditions(const IndexSpace &space);
// The new launch's grid.y of a 1-D kernel and grid.z: kept for a batch, else 1.
std::string grid_y(const IndexSpace &space);
std::string grid_z(const IndexSpace &space);

// A 2-D kernel whose x and y global indexes are each held by one variable
// (and the idiom used nowhere else); atomics are refused.
struct Index2D {
  IndexSpace space;
  const clang::VarDecl *x = nullptr, *y = nullptr;
};
Expected<Index2D> index_2d(const KernelAst &k, bool allow_batch = false);

// The launch of a 2-D kernel in tiles of `unit_x` x `unit_y` of the original
// threads, each tile a block of `block_x` x `block_y` threads: grid, block and
// the preconditions (fixed dimensions, coverage in x and y). A 3-D kernel's
// tiles are also `unit_z` deep, in blocks `block_z` deep (coverage in z too).
launch::LaunchMapping tile_mapping(const IndexSpace &space, long unit_x, long unit_y, long block_x, long block_y,
                                   long unit_z = 1, long block_z = 1);

// The launch of a 1-D kernel whose threads each run `factor` of the
// original's (in blocks of `block`): the grid shrinks to cover the same
// threads; preconditions: fixed dimensions, coverage of block * factor.
launch::LaunchMapping coarse_mapping(const IndexSpace &s, long block, long factor);

// `source` with `__launch_bounds__(threads)` before the kernel's name, unless
// it already has launch bounds or `__maxnreg__`: for a transform that fixes
// the block's size.
std::string with_launch_bounds(const std::string &source, long threads);

// `value` in the type of the global-index idiom whose text is `idiom`: what
// replaces the idiom where a thread handles other items than its own.
std::string as_index(const std::string &idiom, const std::string &value);

// Edits making every `return` under `body` a `goto label;` (the end of an
// item or pass, not of the thread). Error when one is written in a macro.
Status returns_to_goto(const KernelAst &k, const clang::Stmt *body, const std::string &label, Edits &e);
// `label:;` on a line of its own when `text` jumps to it (returns_to_goto's
// `goto label;`), else "": an unused label draws a compiler warning.
std::string label_if_used(const std::string &text, const std::string &label);

// Edits of the body of `space`: every use of the global-index idiom becomes
// `item` (in the idiom's type), and every `return` a `goto label;`.
Status retarget_items(const KernelAst &k, const IndexSpace &space, const std::string &item, const std::string &label,
                      Edits &e);

} // namespace kbcc::transform
