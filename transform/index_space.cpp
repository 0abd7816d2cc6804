#include "transform/index_space.h"

#include "transform/transform.h"

namespace kbcc::transform {

Expected<IndexSpace> index_space(const KernelAst &k, bool allow_2d, bool allow_atomics) {
  IndexSpace s;
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
  IndexUses uses = index_uses(s.body);
  if (!uses.other.empty())
    return not_applicable("the kernel reads threadIdx/blockIdx/blockDim/gridDim outside the global-index idiom");
  if (uses.global.empty()) return not_applicable("the kernel has no global index (blockIdx*blockDim+threadIdx)");
  if (uses.any_in(2)) return not_applicable("the kernel indexes the z dimension");
  s.dims = uses.any_in(1) ? 2 : 1;
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

std::string coverage_precondition(const IndexSpace &space, int dim, long unit) {
  std::string axis = dim == 0 ? "x" : "y";
  std::string extent = "grid." + axis + " * block." + axis;
  std::string out = "(" + extent + ") % " + std::to_string(unit) + " == 0";
  for (const std::string &b : space.bounds[dim])
    out += " || " + b + " <= " + extent;
  return out;
}

std::vector<std::string> fixed_dims_preconditions(int dims) {
  std::vector<std::string> out;
  if (dims < 2) out.insert(out.end(), {"grid.y == 1", "block.y == 1"});
  out.insert(out.end(), {"grid.z == 1", "block.z == 1", "shared == 0"});
  return out;
}

} // namespace kbcc::transform
