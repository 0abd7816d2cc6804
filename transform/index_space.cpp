#include "transform/index_space.h"

#include "tooling/kernel_text.h"
#include "transform/transform.h"

#include <algorithm>
#include <functional>

namespace kbcc::transform {

namespace {

// Sets `s.body` when kernel `k` has one and none of the effects by which its
// threads could depend on each other: barriers, warp-level operations,
// shared memory, inline assembly, device-side launches, calls kbcc cannot
// see, and atomics unless `allow_atomics`; else the reason.
Status independent_threads(const KernelAst &k, bool allow_atomics, IndexSpace &s) {
  s.body = llvm::dyn_cast_or_null<clang::CompoundStmt>(k.kernel()->getBody());
  if (!s.body) return not_applicable("the kernel has no body");
  Effects fx = effects_of(k.kernel());
  if (fx.barrier) return not_applicable("the kernel synchronizes threads (barriers)");
  if (fx.warp_ops) return not_applicable("the kernel uses warp-level operations");
  if (fx.shared_memory) return not_applicable("the kernel uses shared memory");
  if (fx.inline_asm) return not_applicable("the kernel has inline assembly");
  if (fx.device_launch) return not_applicable("the kernel launches kernels");
  if (fx.unknown_calls) return not_applicable("the kernel calls functions kbcc cannot see");
  if (fx.atomics && !allow_atomics) return not_applicable("the kernel uses atomics");
  return Status::ok();
}

} // namespace

Expected<IndexSpace> index_space(const KernelAst &k, bool allow_2d, bool allow_atomics, bool allow_batch,
                                 bool allow_3d) {
  IndexSpace s;
  if (auto st = independent_threads(k, allow_atomics, s); !st) return st.error();
  IndexUses uses = index_uses(s.body);
  // blockIdx.y/z and gridDim.y/z are a batch index only where the kernel has
  // no global index in that dimension.
  auto batch_read = [&](const Builtin &b) {
    return b.dim >= 1 && !uses.global_in(b.dim) && (b.var == Builtin::BlockIdx || b.var == Builtin::GridDim);
  };
  bool batch = !uses.other.empty() && std::all_of(uses.other.begin(), uses.other.end(), batch_read);
  if (batch && !allow_batch)
    return not_applicable("the kernel reads blockIdx.y/z or gridDim.y/z outside the global-index idiom (a batch, "
                          "which this transform does not take)");
  if (!uses.other.empty() && !batch)
    return not_applicable("the kernel reads threadIdx/blockIdx/blockDim/gridDim outside the global-index idiom");
  for (const Builtin &b : uses.other)
    (b.dim == 1 ? s.batch_y : s.batch) = true;
  if (uses.global.empty()) return not_applicable("the kernel has no global index (blockIdx*blockDim+threadIdx)");
  if (uses.global_in(2) && !(allow_2d && allow_3d)) return not_applicable("the kernel indexes the z dimension");
  if (uses.global_in(2) && !uses.global_in(1)) return not_applicable("the kernel indexes z but not y");
  s.dims = uses.global_in(2) ? 3 : uses.global_in(1) ? 2 : 1;
  if (s.dims == 2 && !allow_2d) return not_applicable("the kernel indexes two dimensions");
  if (!uses.any_in(0)) return not_applicable("the kernel does not index the x dimension");
  s.occurrences = uses.global;
  for (int d = 0; d < s.dims; ++d)
    for (const clang::VarDecl *v : index_variables(s.body, d))
      for (const clang::Expr *b : guard_bounds(s.body, v))
        if (auto text = as_mapping_expr(b)) {
          s.bounds[d].push_back(*text);
          auto params = integer_params(b);
          s.bound_params.insert(params.begin(), params.end());
        }
  return s;
}

Expected<IndexSpace> serial_space(const KernelAst &k, bool allow_atomics) {
  IndexSpace s;
  if (auto st = independent_threads(k, allow_atomics, s); !st) return st.error();
  IndexUses uses = index_uses(s.body);
  if (!uses.global.empty() || !uses.other.empty())
    return not_applicable("the kernel reads threadIdx, blockIdx, blockDim or gridDim");
  return s;
}

std::string coverage_precondition(const IndexSpace &space, int dim, long unit) {
  std::string axis(1, "xyz"[dim]);
  std::string extent = "grid." + axis + " * block." + axis;
  std::string out = "(" + extent + ") % " + std::to_string(unit) + " == 0";
  for (const std::string &b : space.bounds[dim]) {
    out += " || ";
    out += b;
    out += " <= ";
    out += extent;
  }
  return out;
}

std::vector<std::string> fixed_dims_preconditions(const IndexSpace &space) {
  std::vector<std::string> out;
  if (space.dims < 2 && !space.batch_y) out.emplace_back("grid.y == 1");
  if (space.dims < 2) out.emplace_back("block.y == 1");
  if (space.dims < 3 && !space.batch) out.emplace_back("grid.z == 1");
  if (space.dims < 3) out.emplace_back("block.z == 1");
  out.emplace_back("shared == 0");
  return out;
}

std::string grid_y(const IndexSpace &space) { return space.batch_y ? "grid.y" : "1"; }

std::string grid_z(const IndexSpace &space) { return space.batch ? "grid.z" : "1"; }

Expected<Index2D> index_2d(const KernelAst &k, bool allow_batch) {
  auto s = index_space(k, /*allow_2d=*/true, /*allow_atomics=*/false, allow_batch);
  if (!s) return s.error();
  if (s->dims != 2) return not_applicable("the kernel indexes one dimension");
  auto xs = index_variables(s->body, 0), ys = index_variables(s->body, 1);
  if (xs.size() != 1 || ys.size() != 1 || s->occurrences.size() != 2)
    return not_applicable("the x and y global indexes are not held by one variable each");
  return Index2D{*s, xs[0], ys[0]};
}

launch::LaunchMapping tile_mapping(const IndexSpace &space, long unit_x, long unit_y, long block_x, long block_y,
                                   long unit_z, long block_z) {
  launch::LaunchMapping m;
  m.grid = {"ceil_div(grid.x * block.x, " + std::to_string(unit_x) + ")",
            "ceil_div(grid.y * block.y, " + std::to_string(unit_y) + ")", grid_z(space)};
  m.block = {std::to_string(block_x), std::to_string(block_y), "1"};
  if (space.dims == 3) {
    m.grid[2] = "ceil_div(grid.z * block.z, " + std::to_string(unit_z) + ")";
    m.block[2] = std::to_string(block_z);
  }
  m.shared = "0";
  m.preconditions = fixed_dims_preconditions(space);
  m.preconditions.push_back(coverage_precondition(space, 0, unit_x));
  m.preconditions.push_back(coverage_precondition(space, 1, unit_y));
  if (space.dims == 3) m.preconditions.push_back(coverage_precondition(space, 2, unit_z));
  return m;
}

launch::LaunchMapping coarse_mapping(const IndexSpace &s, long block, long factor) {
  launch::LaunchMapping m;
  m.grid = {"ceil_div(grid.x * block.x, " + std::to_string(block * factor) + ")", grid_y(s), grid_z(s)};
  m.block = {std::to_string(block), "1", "1"};
  m.shared = "0";
  m.preconditions = fixed_dims_preconditions(s);
  m.preconditions.push_back(coverage_precondition(s, 0, block * factor));
  return m;
}

Status returns_to_goto(const KernelAst &k, const clang::Stmt *body, const std::string &label, Edits &e) {
  Status status = Status::ok();
  std::function<void(const clang::Stmt *)> visit = [&](const clang::Stmt *s) {
    if (!s || !status) return;
    if (llvm::isa<clang::ReturnStmt>(s)) {
      size_t b = 0, x = 0;
      if (!k.span(s->getSourceRange(), b, x))
        status = not_applicable("a return is written in a macro");
      else
        e.replace(b, past_semicolon(k.source(), x), "goto " + label + ";");
      return;
    }
    for (const clang::Stmt *c : s->children())
      visit(c);
  };
  visit(body);
  return status;
}

std::string label_if_used(const std::string &text, const std::string &label) {
  return text.find("goto " + label + ";") == std::string::npos ? "" : "    " + label + ":;\n";
}

std::string with_launch_bounds(const std::string &source, long threads) {
  std::string out = source;
  auto k = tooling::parse_kernel_text(source);
  if (k && !k->has_launch_bounds && !k->has_maxnreg)
    out.insert(k->name_pos, "__launch_bounds__(" + std::to_string(threads) + ") ");
  return out;
}

std::string as_index(const std::string &idiom, const std::string &value) {
  return "((decltype(" + idiom + "))(" + value + "))";
}

Status retarget_items(const KernelAst &k, const IndexSpace &space, const std::string &item, const std::string &label,
                      Edits &e) {
  const std::string &src = k.source();
  for (const GlobalIndex &g : space.occurrences) {
    size_t b = 0, x = 0;
    if (!k.span(g.expr->getSourceRange(), b, x)) return not_applicable("the global index is written in a macro");
    e.replace(b, x, as_index(src.substr(b, x - b), item));
  }
  return returns_to_goto(k, space.body, label, e);
}

} // namespace kbcc::transform
