// block_size_tuning: a kernel whose threads find their work only through the
// global-index idiom (in x; x and y; or x, y and z) computes the same thing
// with any block shape, provided the new grid covers the same index space:
// extra threads of the last block are idle when a guard bound shows it, or
// when the block divides the original extent, in each dimension. The kernel
// text gains __launch_bounds__.
#include "cache/variant.h"
#include "transform/index_space.h"
#include "transform/transform.h"

namespace kbcc::transform {
namespace {

Expected<std::vector<Axis>> space(const Input &in) {
  auto s = index_space(*in.ast, /*allow_2d=*/true, /*allow_atomics=*/true, /*allow_batch=*/true, /*allow_3d=*/true);
  if (!s) return s.error();
  if (s->dims == 1) return std::vector<Axis>{{"block", {"256", "128", "512", "64", "1024"}}};
  if (s->dims == 3) // wide in x first: a warp's accesses run along x
    return std::vector<Axis>{
        {"block", {"64x4x1", "32x4x2", "128x2x1", "32x8x1", "256x1x1", "64x2x2", "32x4x4", "16x8x4", "8x8x8"}}};
  return std::vector<Axis>{{"block", {"32x8", "32x4", "64x4", "32x16", "16x16", "128x2", "32x32", "64x8"}}};
}

Expected<Output> apply(const Input &in, const Params &params) {
  auto s = index_space(*in.ast, true, true, true, true);
  if (!s) return s.error();
  auto [bx, by, bz] = shape3_param(params, "block", "256");
  if (bx < 1 || by < 1 || bz < 1 || bz > 64 || bx * by * bz > 1024 || (s->dims == 1 && by != 1) ||
      (s->dims < 3 && bz != 1)) {
    std::string given = params.count("block") ? params.at("block") : "256";
    return not_applicable("block " + given + " is not a valid block shape for this kernel");
  }
  Output out;
  out.source = with_launch_bounds(in.source, bx * by * bz);
  out.launch = s->dims == 1 ? coarse_mapping(*s, bx, 1) : tile_mapping(*s, bx, by, bx, by, bz, bz);
  out.numerics = cache::kNumericsExact;
  out.size_params.assign(s->bound_params.begin(), s->bound_params.end());
  return out;
}

} // namespace

Transform block_size_transform() {
  return {"block_size",
          cache::kNumericsExact,
          "another block shape (64..1024 threads, 2-D and 3-D shapes for 2-D and 3-D kernels), the grid recomputed to "
          "cover the same index space",
          true,
          space,
          apply};
}

} // namespace kbcc::transform
