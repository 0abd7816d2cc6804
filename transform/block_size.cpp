// block_size_tuning: a kernel whose threads find their work only through the
// global-index idiom (in x, or x and y) computes the same thing with any block
// shape, provided the new grid covers the same index space: extra threads of
// the last block are idle when a guard bound shows it, or when the block
// divides the original extent. The kernel text gains __launch_bounds__.
#include "cache/variant.h"
#include "transform/index_space.h"
#include "transform/transform.h"

namespace kbcc::transform {
namespace {

Expected<std::vector<Axis>> space(const Input &in) {
  auto s = index_space(*in.ast, /*allow_2d=*/true, /*allow_atomics=*/true, /*allow_batch=*/true);
  if (!s) return s.error();
  if (s->dims == 1) return std::vector<Axis>{{"block", {"256", "128", "512", "64", "1024"}}};
  return std::vector<Axis>{{"block", {"32x8", "32x4", "64x4", "32x16", "16x16", "128x2", "32x32", "64x8"}}};
}

Expected<Output> apply(const Input &in, const Params &params) {
  auto s = index_space(*in.ast, true, true, true);
  if (!s) return s.error();
  auto [bx, by] = shape_param(params, "block", "256");
  if (bx < 1 || by < 1 || bx * by > 1024 || (s->dims == 1 && by != 1)) {
    std::string given = params.count("block") ? params.at("block") : "256";
    return not_applicable("block " + given + " is not a valid block shape for this kernel");
  }
  Output out;
  out.source = with_launch_bounds(in.source, bx * by);
  launch::LaunchMapping m;
  m.grid = {"ceil_div(grid.x * block.x, " + std::to_string(bx) + ")", grid_y(*s), grid_z(*s)};
  m.block = {std::to_string(bx), "1", "1"};
  if (s->dims == 2) {
    m.grid[1] = "ceil_div(grid.y * block.y, " + std::to_string(by) + ")";
    m.block[1] = std::to_string(by);
  }
  m.shared = "0";
  m.preconditions = fixed_dims_preconditions(*s);
  for (int d = 0; d < s->dims; ++d)
    m.preconditions.push_back(coverage_precondition(*s, d, d == 0 ? bx : by));
  out.launch = m;
  out.numerics = cache::kNumericsExact;
  out.size_params.assign(s->bound_params.begin(), s->bound_params.end());
  return out;
}

} // namespace

Transform block_size_transform() {
  return {"block_size",
          cache::kNumericsExact,
          "another block shape (64..1024 threads, 2-D shapes for 2-D kernels), the grid recomputed to cover the same "
          "index space",
          true,
          space,
          apply};
}

} // namespace kbcc::transform
