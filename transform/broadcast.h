// smem_tiling's broadcast form (transform/broadcast.cpp): a kernel whose
// threads all run one loop over the same range and read the same elements of
// read-only arrays at each step (all-pairs interactions, a filter w[t])
// stages those elements in shared memory a tile of steps at a time.
// smem_tiling uses it for kernels its other forms do not accept.
#pragma once

#include "transform/transform.h"

namespace kbcc::transform {

// The parameter axes (tile length), or Error "not-applicable" with the reason.
Expected<std::vector<Axis>> broadcast_space(const Input &in);
// The rewritten kernel for `params` ("tile": steps per staged tile); the
// launch is kept.
Expected<Output> broadcast_apply(const Input &in, const Params &params);

} // namespace kbcc::transform
