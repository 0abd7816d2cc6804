// smem_tiling's stencil form (transform/halo.cpp): a 2-D kernel whose
// threads read a read-only array around their own element stages each
// block's tile and halo in shared memory. smem_tiling uses it for kernels
// its reduction-loop form does not accept.
#pragma once

#include "transform/transform.h"

namespace kbcc::transform {

// The parameter axes (cols when the window applies, rows, block), or Error
// "not-applicable" with the reason.
Expected<std::vector<Axis>> halo_space(const Input &in);
// The rewritten kernel and its launch mapping for `params` ("block": "BXxBY",
// "rows": items along y, "cols": 4 for a register window along x, or 1).
Expected<Output> halo_apply(const Input &in, const Params &params);

} // namespace kbcc::transform
