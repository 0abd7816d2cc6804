// smem_tiling: a 2-D global-index kernel (thread per output (row, col)) whose
// reduction loop over k reads elements that depend on (row, k) and on
// (k, col) reads each of them once per output thread. With square blocks of
// `tile` threads, a block loads a tile of each operand into shared memory
// once per `tile` steps of k and every thread reads its operands there. The
// per-output sum keeps its order (k ascending), so results are bit-identical.
//
// Legal when analyze_tiling accepts the kernel (tiling_analysis.h); the
// statements after the loop run for in-range outputs only. Kernels it does
// not accept get the stencil form (halo.h) where that applies, then the
// broadcast form (broadcast.h).
#include "cache/variant.h"
#include "transform/broadcast.h"
#include "transform/edits.h"
#include "transform/halo.h"
#include "transform/tiling_analysis.h"
#include "transform/transform.h"

namespace kbcc::transform {
using namespace clang;

namespace {

Expected<std::vector<Axis>> space(const Input &in) {
  auto p = analyze_tiling(*in.ast);
  if (p) return std::vector<Axis>{{"tile", {"16", "32"}}};
  auto halo = halo_space(in);
  if (halo) return halo;
  auto broadcast = broadcast_space(in);
  if (broadcast) return broadcast;
  return not_applicable(p.error().message + "; as a stencil: " + halo.error().message +
                        "; as a broadcast: " + broadcast.error().message);
}

Expected<Output> apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto p = analyze_tiling(k);
  if (!p) {
    if (halo_space(in)) return halo_apply(in, params);
    return broadcast_space(in) ? broadcast_apply(in, params) : space(in).error();
  }
  auto it = params.find("tile");
  std::string t = it == params.end() ? "16" : it->second;
  if (t != "16" && t != "32") return not_applicable("tile must be 16 or 32");
  const std::string &src = k.source();
  std::string var = p->loop.var->getName().str();
  std::string bound = k.text(p->loop.bound->getSourceRange()), init = k.text(p->loop.init->getSourceRange());
  std::string in_range = var + (p->loop.inclusive ? " <= " : " < ") + "(" + bound + ")";
  if (bound.empty() || init.empty()) return not_applicable("the loop bounds are written in a macro");
  // Operand tiles and the loads that read them.
  std::string decls, fill, tileA, tileB;
  Edits body; // edits of the loop body's text
  size_t bb = 0, be = 0;
  if (!k.span(p->loop.loop->getBody()->getSourceRange(), bb, be))
    return not_applicable("the loop is written in a macro");
  be = past_semicolon(src, be);
  for (const TileLoad &l : p->loads) {
    size_t b = 0, e = 0;
    if (!k.span(l.expr->getSourceRange(), b, e)) return not_applicable("a load is written in a macro");
    std::string text = src.substr(b, e - b);
    std::string type = l.expr->getType().getUnqualifiedType().getAsString();
    std::string &tile = l.operand == 'A' ? tileA : tileB;
    if (!tile.empty()) {
      if (tile != text) return not_applicable("the loop reads two different operands along one axis");
    } else {
      tile = text;
      std::string name = std::string("__kbcc_") + l.operand + "s";
      decls += "  __shared__ " + type + " " + name + "[" + t + "][" + t + " + 1];\n";
      bool a = l.operand == 'A';
      fill += "    { const decltype(__kbcc_k0) " + var + " = __kbcc_k0 + threadIdx." + (a ? "x" : "y") + "; " + name +
              "[threadIdx.y][threadIdx.x] = (" + (a ? "__kbcc_row_ok" : "__kbcc_col_ok") + " && " + in_range + ") ? (" +
              type + ")(" + text + ") : (" + type + ")0; }\n";
    }
    body.replace(b - bb, e - bb,
                 l.operand == 'A' ? "__kbcc_As[threadIdx.y][__kbcc_kk]" : "__kbcc_Bs[__kbcc_kk][threadIdx.x]");
  }
  auto inner = body.apply(src.substr(bb, be - bb));
  if (!inner) return inner.error();
  Edits e;
  size_t open = k.offset(p->space.body->getLBracLoc()), close = k.offset(p->scope->getRBracLoc());
  e.insert(open + 1, "\n" + decls);
  if (p->guard) {
    size_t gb = 0, ge = 0;
    if (!guard_span(k, *p, gb, ge)) return not_applicable("the guard is written in a macro");
    std::string uniform =
        p->uniform_terms.empty() ? "" : "if (!(" + working(k, *p, p->uniform_terms) + ")) return;\n  ";
    e.replace(gb, ge,
              uniform + "const bool __kbcc_row_ok = " + working(k, *p, p->row_terms) +
                  ";\n  const bool __kbcc_col_ok = " + working(k, *p, p->col_terms) + ";" +
                  (p->guard_keeps ? "\n  " : ""));
  } else {
    e.insert(open + 1, "  const bool __kbcc_row_ok = true, __kbcc_col_ok = true;\n");
  }
  size_t lb = 0, le = 0;
  k.span(p->loop.loop->getSourceRange(), lb, le);
  e.replace(lb, be,
            "for (decltype(" + init + " + 0) __kbcc_k0 = " + init + "; __kbcc_k0" +
                (p->loop.inclusive ? " <= " : " < ") + "(" + bound + "); __kbcc_k0 += " + t + ") {\n" + fill +
                "    __syncthreads();\n    #pragma unroll\n    for (int __kbcc_kk = 0; __kbcc_kk < " + t +
                "; ++__kbcc_kk) {\n      const decltype(__kbcc_k0) " + var + " = __kbcc_k0 + __kbcc_kk;\n      if (" +
                in_range + ") " + *inner + "\n    }\n    __syncthreads();\n  }");
  size_t ab = 0, ae = 0;
  if (!k.span(p->after.front()->getSourceRange(), ab, ae)) return not_applicable("a statement is written in a macro");
  e.insert(ab, "if (__kbcc_row_ok && __kbcc_col_ok) {\n  ");
  e.insert(close, "  }\n");
  // An accumulator's initializer that reads memory does so for working threads only.
  for (const VarDecl *v : p->loaded_inits) {
    size_t ib = 0, ie = 0;
    if (!k.span(v->getInit()->getSourceRange(), ib, ie)) return not_applicable("an initializer is written in a macro");
    std::string type = "(" + v->getType().getUnqualifiedType().getAsString() + ")";
    std::string guarded = "(__kbcc_row_ok && __kbcc_col_ok) ? ";
    guarded += type + "(" + src.substr(ib, ie - ib) + ") : ";
    e.replace(ib, ie, guarded + type + "0");
  }
  auto text = e.apply(src);
  if (!text) return text.error();
  Output out;
  out.source = *text;
  out.launch = tile_mapping(p->space, std::stol(t), std::stol(t), std::stol(t), std::stol(t));
  out.numerics = cache::kNumericsExact;
  std::set<std::string> sizes = p->space.bound_params;
  auto kp = integer_params(p->loop.bound);
  sizes.insert(kp.begin(), kp.end());
  out.size_params.assign(sizes.begin(), sizes.end());
  return out;
}

} // namespace

Transform tiling_transform() {
  return {"smem_tiling",
          cache::kNumericsExact,
          "a 2-D thread-per-output kernel with a reduction loop stages the (row, k) and (k, col) operands in shared "
          "tiles loaded once per block; a stencil stages its block's tile and halo; a loop every thread runs over "
          "the same range stages the elements all threads read at each step",
          true,
          space,
          apply};
}

} // namespace kbcc::transform
