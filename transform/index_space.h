// The index space of a kernel written with the global-index idiom
// (blockIdx.d * blockDim.d + threadIdx.d): which dimensions it uses, where the
// idiom occurs, and the bounds its guards check, so a transform can launch it
// differently and still cover exactly the threads the original had.
#pragma once

#include "support/expected.h"
#include "transform/analysis.h"
#include "transform/ast.h"

#include <set>
#include <string>
#include <vector>

namespace kbcc::transform {

struct IndexSpace {
  int dims = 1;                                 // 1: x only; 2: x and y
  std::vector<GlobalIndex> occurrences;         // every use of the idiom
  std::vector<std::string> bounds[2];           // guard bounds per dimension, in the mapping language
  std::set<std::string> bound_params;           // integer parameters those bounds read
  const clang::CompoundStmt *body = nullptr;
};

// Checks that the kernel reads CUDA builtins only through the idiom, in x
// (and y when `allow_2d`), and has no barriers, warp operations, shared
// memory, inline assembly, device-side launches or calls kbcc cannot see
// (atomics only when `allow_atomics`). Error "not-applicable" with the reason.
Expected<IndexSpace> index_space(const KernelAst &k, bool allow_2d, bool allow_atomics);

// Preconditions of a launch mapping over `space` whose new launch covers the
// original's threads of dimension `dim` in units of `unit` threads: the unit
// divides the original extent, or a guard bound shows the extra threads idle.
std::string coverage_precondition(const IndexSpace &space, int dim, long unit);

// grid/block extents of the dimensions the kernel does not use must be 1, and
// no dynamic shared memory: the preconditions saying so.
std::vector<std::string> fixed_dims_preconditions(int dims);


} // namespace kbcc::transform
