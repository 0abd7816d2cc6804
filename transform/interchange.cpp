// interchange_thread_axes: a 2-D kernel whose memory accesses step by one
// element with the y index and by more with x (row = x, column = y, a
// row-major array) leaves consecutive threads of a warp far apart in memory.
// Its x and y global indexes trade places: the x index of the kernel is now
// computed from the launch's y dimension and the y index from x, and the
// grid is rebuilt in the new block shape so that the new x extent covers the
// original y extent and the reverse. Every thread still computes one
// original item, so consecutive threads now touch consecutive elements.
//
// Legal when the threads are independent of which item they get: builtins
// only in the x and y global indexes (one variable each), no barriers, warp
// operations, shared memory or atomics (transform/index_space.h). Offered
// only when it pays: the accesses it makes contiguous outweigh those it
// makes strided, each access weighing 4 per enclosing loop.
#include "cache/variant.h"
#include "transform/index_space.h"
#include "transform/transform.h"

namespace kbcc::transform {
using namespace clang;

namespace {

// How many loops enclose `target` under `s` (-1 when `target` is not there).
int loop_depth(const Stmt *s, const Stmt *target, int depth = 0) {
  if (!s) return -1;
  if (s == target) return depth;
  bool loop = isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s);
  for (const Stmt *c : s->children())
    if (int d = loop_depth(c, target, depth + (loop ? 1 : 0)); d >= 0) return d;
  return -1;
}

// The weighted count of the kernel's global accesses the interchange makes
// contiguous or broadcast across a warp (`gain`), and of those it takes from
// contiguous to strided (`loss`).
struct Balance {
  long gain = 0, loss = 0;
};
Balance balance(const Index2D &idx) {
  Balance b;
  walk(idx.space.body, [&](const Stmt *s) {
    const auto *sub = dyn_cast<ArraySubscriptExpr>(s);
    if (!sub || !root_parameter(sub->getBase())) return;
    const Expr *i = sub->getIdx();
    long weight = 1;
    for (int d = loop_depth(idx.space.body, s); d > 0; --d)
      weight *= 4;
    bool reads_x = refers_to(i, idx.x), reads_y = refers_to(i, idx.y);
    bool unit_x = unit_stride(i, idx.x), unit_y = unit_stride(i, idx.y);
    if (reads_x && !unit_x && (unit_y || !reads_y)) b.gain += weight;
    if (unit_x && reads_y && !unit_y) b.loss += weight;
  });
  return b;
}

Expected<Index2D> analyze(const KernelAst &k) {
  auto idx = index_2d(k, /*allow_batch=*/true);
  if (!idx) return idx.error();
  Balance b = balance(*idx);
  if (b.gain <= b.loss)
    return not_applicable("no more accesses are strided in x and contiguous in y than the reverse (" +
                          std::to_string(b.gain) + " against " + std::to_string(b.loss) + ", weighted by loop depth)");
  return idx;
}

Expected<std::vector<Axis>> space(const Input &in) {
  auto idx = analyze(*in.ast);
  if (!idx) return idx.error();
  return std::vector<Axis>{{"block", {"32x8", "64x4", "32x4", "128x2", "32x16", "16x16", "256x1", "32x32"}}};
}

Expected<Output> apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto idx = analyze(k);
  if (!idx) return idx.error();
  auto [bx, by] = shape_param(params, "block", "32x8");
  if (bx < 1 || by < 1 || bx * by > 1024) return not_applicable("the block shape must have 1 to 1024 threads");
  const std::string &src = k.source();
  Edits e;
  for (const GlobalIndex &g : idx->space.occurrences) {
    size_t b = 0, x = 0;
    if (!k.span(g.expr->getSourceRange(), b, x)) return not_applicable("the global index is written in a macro");
    e.replace(b, x,
              as_index(src.substr(b, x - b),
                       g.dim == 0 ? "blockIdx.y * blockDim.y + threadIdx.y" : "blockIdx.x * blockDim.x + threadIdx.x"));
  }
  auto text = e.apply(src);
  if (!text) return text.error();
  Output out;
  out.source = with_launch_bounds(*text, bx * by);
  // New x threads cover the original y extent, new y threads the x extent.
  launch::LaunchMapping m;
  m.grid = {"ceil_div(grid.y * block.y, " + std::to_string(bx) + ")",
            "ceil_div(grid.x * block.x, " + std::to_string(by) + ")", grid_z(idx->space)};
  m.block = {std::to_string(bx), std::to_string(by), "1"};
  m.shared = "0";
  m.preconditions = fixed_dims_preconditions(idx->space);
  m.preconditions.push_back(coverage_precondition(idx->space, 1, bx));
  m.preconditions.push_back(coverage_precondition(idx->space, 0, by));
  out.launch = m;
  out.numerics = cache::kNumericsExact;
  out.size_params.assign(idx->space.bound_params.begin(), idx->space.bound_params.end());
  return out;
}

} // namespace

Transform interchange_transform() {
  return {"interchange_thread_axes",
          cache::kNumericsExact,
          "a 2-D kernel whose accesses are contiguous in y and strided in x swaps its x and y global indexes, so "
          "consecutive threads touch consecutive elements; the grid is rebuilt in a new block shape",
          true,
          space,
          apply};
}

} // namespace kbcc::transform
