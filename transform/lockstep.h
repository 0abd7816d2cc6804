// Coarsening across barriers: each thread of the rewritten kernel runs
// FX x FY threads of the original block (virtual threads), so the kernel
// runs with block.x / FX x block.y / FY threads and computes what the
// original launch computed. Virtual thread k of thread (tx, ty) is
// ((k % FX) * blockDim.x + tx, (k / FX) * blockDim.y + ty), which keeps a
// warp's accesses as contiguous as the original's. The virtual block is the
// original block, so shared arrays, barriers and every index keep their
// meaning. Rows (FY) serve a kernel that reads threadIdx.y and has rows;
// columns (FX) a 1-D kernel, and a 2-D one together with rows, so that what
// a column's virtual threads all read is read once too.
//
// The body splits into structural code, which every thread runs once, and
// leaf statements, which run once per virtual thread:
//   - structural: `__syncthreads();`, `__shared__` declarations, statements
//     that hold a barrier (blocks; loops whose header every thread of the
//     block computes alike; `if`s on such a condition; `if`s without else on
//     a condition of the thread, "guards"; `if (C) return;` at the top of the
//     body before a barrier, a guard of what follows it), and the
//     declarations and assignments of uniform variables: locals and
//     parameters whose every value every thread computes alike (from
//     literals, parameters, blockIdx, blockDim, gridDim and other uniform
//     variables, without memory or calls) at a structural statement. In the
//     `lockstep` order, counted loops with a uniform header and no early exit
//     are structural too, so that the virtual threads run each iteration
//     together and what they all read in it is read once (the register
//     blocking of a tiled product).
//   - each run of consecutive leaf statements becomes a loop over the
//     virtual threads, in which threadIdx.x and .y read the virtual thread's
//     index; everywhere, blockDim.x and .y read the original block's extents.
// Between two barriers the original threads ran in no particular order, and
// any order that keeps each thread's own is one they could have run in, as
// long as none relies on the threads of a warp running together (refused:
// warp-level operations, volatile accesses, inline assembly). Locals that
// carry a value from one run to another get one copy per virtual thread. A
// guard's condition is kept per virtual thread; when it holds for every
// thread of the block (`__syncthreads_and`) its code runs without the test.
// A barrier under a condition that differs between a block's threads is
// undefined in CUDA; the rewrite gives it the meaning the hardware does: the
// threads that skip it take no part.
#pragma once

#include "support/expected.h"
#include "transform/ast.h"
#include "transform/transform.h"

#include <string>
#include <vector>

namespace kbcc::transform {

// The parameter space of the form for `in`: `factor`, the virtual threads
// per thread, "FX" (in x) or "FXxFY" (x and y): for a kernel that reads
// threadIdx.y or blockDim.y and whose blocks have rows, 1x4, 1x2, 1x8, 2x4,
// 2x2, 4x4, 2x8, else 4, 2, 8, those that divide every captured block's
// extents and leave at least 32 threads per block; and `order` (lockstep,
// and serial where that differs). Errors: not-applicable with the reason.
Expected<std::vector<Axis>> lockstep_space(const Input &in);

// The rewrite for `factor` and `order`, with its launch mapping (block.x /
// FX, block.y / FY, when they divide). Errors: not-applicable with the
// reason.
Expected<Output> lockstep_apply(const Input &in, const Params &params);

} // namespace kbcc::transform
