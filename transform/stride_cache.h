// sliding_window's cached form (transform/stride_cache.cpp): a kernel whose
// threads run several block-stride loops over one range and read the same
// elements of a stream in more than one of them (a block-per-row
// normalisation's mean, variance and output passes) reads each element once
// into registers. sliding_window uses it for kernels its window form does
// not accept.
#pragma once

#include "transform/transform.h"

namespace kbcc::transform {

// The parameter axes ("steps": each thread's loop steps kept in registers),
// or Error "not-applicable" with the reason.
Expected<std::vector<Axis>> stride_cache_space(const Input &in);
// The rewritten kernel for `params`; the launch is kept, under the
// precondition that every thread runs at most `steps` steps of the loops.
Expected<Output> stride_cache_apply(const Input &in, const Params &params);

} // namespace kbcc::transform
