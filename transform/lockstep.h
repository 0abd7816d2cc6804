// Coarsening across barriers: each thread of the rewritten kernel runs
// `factor` threads of the original block (virtual threads), so the kernel
// runs with block.A / factor threads in one dimension A of the block and
// computes what the original launch computed. A is y when the kernel reads
// threadIdx.y or blockDim.y and its blocks have rows, else x; virtual thread
// k of thread t is k * blockDim.A + t, which keeps a warp's accesses as
// contiguous as the original's. The virtual block is the original block, so
// shared arrays, barriers and every index keep their meaning.
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
//     virtual threads, in which threadIdx.A reads the virtual thread's index;
//     everywhere, blockDim.A reads the original block's extent.
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

// The dimension of the block to coarsen (0: x, 1: y) for `k` launched as
// `launches` (none known: as the kernel reads its builtins).
int lockstep_axis(const KernelAst &k, const std::vector<launch::Launch> &launches);

// The parameter space of the form for `in`: `factor` (4, 2, 8: those that
// divide the block's extent in the dimension coarsened on every captured
// launch and leave at least 32 threads per block) and `order` (lockstep, and
// serial where that differs). Errors: not-applicable with the reason.
Expected<std::vector<Axis>> lockstep_space(const Input &in);

// The rewrite for `factor` and `order`, with its launch mapping (block.A /
// factor, when block.A % factor == 0). Errors: not-applicable with the
// reason.
Expected<Output> lockstep_apply(const Input &in, const Params &params);

} // namespace kbcc::transform
