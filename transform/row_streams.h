// smem_transpose_staging's row form (transform/row_streams.cpp): a
// thread-per-row kernel whose loop must stay serial in each thread (an
// online update, a recurrence: split_loop_across_warp refuses it) reads its
// row element after element, so a warp's 32 reads at one step lie a row
// apart. The block now loads each chunk of its rows' elements into a shared
// tile, consecutive threads on consecutive elements of a row, and each
// thread then runs its iterations of the chunk as written, reading the tile.
#pragma once

#include "transform/transform.h"

namespace kbcc::transform {

// The parameter axes ("block": threads per block, "chunk": iterations per
// staged tile), or Error "not-applicable" with the reason.
Expected<std::vector<Axis>> row_streams_space(const Input &in);
// The rewritten kernel for `params`, launched in blocks of `block` threads
// over the same rows.
Expected<Output> row_streams_apply(const Input &in, const Params &params);

} // namespace kbcc::transform
