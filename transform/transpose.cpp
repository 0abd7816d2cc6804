// smem_transpose_staging: a 2-D global-index kernel whose single store moves
// by one element with the y index (and by more with x) writes uncoalesced.
// Each thread now computes its elements (`rows` of them, tile / rows apart
// in y) into a shared tile, and after a barrier stores the elements of the
// transposed positions, so consecutive threads store consecutive addresses.
//
// Legal when: builtins only in the x and y global indexes, held by one index
// variable each; no barriers, warp operations, shared memory or atomics; the
// body's only memory write is one assignment a[S] = RHS whose index S has the
// y variable as a plain term and the x variable otherwise, RHS does not read
// a, and no other statement reads memory (so the second pass re-reads nothing).
#include "cache/variant.h"
#include "transform/edits.h"
#include "transform/index_space.h"
#include "transform/transform.h"

#include <functional>

namespace kbcc::transform {
using namespace clang;

namespace {

struct Plan {
  IndexSpace space;
  const VarDecl *x = nullptr, *y = nullptr;
  const BinaryOperator *store = nullptr;
  std::string element;
};

Expected<Plan> analyze(const KernelAst &k) {
  auto idx = index_2d(k);
  if (!idx) return idx.error();
  Plan p;
  p.space = idx->space;
  p.x = idx->x, p.y = idx->y;
  const IndexSpace *s = &p.space;
  std::vector<const BinaryOperator *> stores;
  std::function<void(const Stmt *)> find = [&](const Stmt *st) {
    if (!st) return;
    if (const auto *b = dyn_cast<BinaryOperator>(st); b && b->isAssignmentOp() && writes_memory(b)) stores.push_back(b);
    for (const Stmt *c : st->children())
      find(c);
  };
  find(s->body);
  if (stores.size() != 1 || stores[0]->getOpcode() != BO_Assign)
    return not_applicable("the kernel does not have exactly one plain store");
  p.store = stores[0];
  const auto *sub = dyn_cast<ArraySubscriptExpr>(p.store->getLHS()->IgnoreParenImpCasts());
  if (!sub) return not_applicable("the store is not a[i] = ...");
  const ParmVarDecl *dst = root_parameter(sub->getBase());
  if (!dst) return not_applicable("the store's array is not a parameter");
  if (!unit_stride(sub->getIdx(), p.y) || unit_stride(sub->getIdx(), p.x) || !refers_to(sub->getIdx(), p.x))
    return not_applicable("the store is not strided in x and contiguous in y");
  std::function<bool(const Stmt *)> reads_dst = [&](const Stmt *st) {
    if (!st) return false;
    if (const auto *a = dyn_cast<ArraySubscriptExpr>(st); a && root_parameter(a->getBase()) == dst) return true;
    for (const Stmt *c : st->children())
      if (reads_dst(c)) return true;
    return false;
  };
  if (reads_dst(p.store->getRHS())) return not_applicable("the stored value reads the stored array");
  for (const Stmt *st : s->body->body()) {
    bool holds_store = false;
    std::function<void(const Stmt *)> has = [&](const Stmt *x) {
      if (!x) return;
      if (x == p.store) holds_store = true;
      for (const Stmt *c : x->children())
        has(c);
    };
    has(st);
    if (!holds_store && reads_memory(st)) return not_applicable("statements other than the store read memory");
  }
  p.element = p.store->getLHS()->getType().getUnqualifiedType().getAsString();
  return p;
}

Expected<std::vector<Axis>> space(const Input &in) {
  auto p = analyze(*in.ast);
  if (!p) return p.error();
  return std::vector<Axis>{{"tile", {"32", "16"}}, {"rows", {"4", "1", "8", "2"}}};
}

// The body's inner text with the indexes and the store rewritten for one
// pass: the first stores its element into `tile`, the second stores `tile`'s
// element; a return jumps to `label` (the pass's next row).
Expected<std::string> pass_text(const KernelAst &k, const Plan &p, const std::string &x_index,
                                const std::string &y_index, bool first, const std::string &tile,
                                const std::string &label) {
  const std::string &src = k.source();
  Edits e;
  for (const GlobalIndex &g : p.space.occurrences) {
    size_t b = 0, x = 0;
    if (!k.span(g.expr->getSourceRange(), b, x)) return not_applicable("the global index is written in a macro");
    e.replace(b, x, "((decltype(" + src.substr(b, x - b) + "))(" + (g.dim == 0 ? x_index : y_index) + "))");
  }
  size_t lb = 0, le = 0, rb = 0, re = 0;
  if (!k.span(p.store->getLHS()->getSourceRange(), lb, le) || !k.span(p.store->getRHS()->getSourceRange(), rb, re))
    return not_applicable("the store is written in a macro");
  if (first)
    e.replace(lb, le, tile);
  else
    e.replace(rb, re, tile);
  if (auto st = returns_to_goto(k, p.space.body, label, e); !st) return st.error();
  auto text = e.apply(src);
  if (!text) return text.error();
  // Only the body's inner text: offsets move with the edits, so find it anew.
  size_t open = k.offset(p.space.body->getLBracLoc());
  size_t shift = text->size() - src.size();
  size_t close = k.offset(p.space.body->getRBracLoc()) + shift;
  return text->substr(open + 1, close - open - 1);
}

Expected<Output> apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto p = analyze(k);
  if (!p) return p.error();
  long tile = int_param(params, "tile", 32), rows = int_param(params, "rows", 1);
  if (tile != 16 && tile != 32) return not_applicable("tile must be 16 or 32");
  if (rows < 1 || rows > tile / 2 || tile % rows) return not_applicable("rows must divide the tile");
  // A block of tile x (tile / rows) threads; each thread handles `rows`
  // elements of its column of the tile, (tile / rows) apart.
  std::string t = std::to_string(tile), ty = std::to_string(tile / rows), r = std::to_string(rows);
  std::string row = "(threadIdx.y + __kbcc_r * " + ty + ")";
  auto first = pass_text(k, *p, "blockIdx.x * " + t + " + threadIdx.x", "blockIdx.y * " + t + " + " + row, true,
                         "__kbcc_tile[" + row + "][threadIdx.x]", "__kbcc_next1");
  if (!first) return first.error();
  auto second = pass_text(k, *p, "blockIdx.x * " + t + " + " + row, "blockIdx.y * " + t + " + threadIdx.x", false,
                          "__kbcc_tile[threadIdx.x][" + row + "]", "__kbcc_next2");
  if (!second) return second.error();
  const std::string &src = k.source();
  size_t open = k.offset(p->space.body->getLBracLoc()), close = k.offset(p->space.body->getRBracLoc());
  std::string loop = "  #pragma unroll\n  for (int __kbcc_r = 0; __kbcc_r < " + r + "; ++__kbcc_r) {\n  {";
  Output out;
  out.source = src.substr(0, open + 1) + "\n  __shared__ " + p->element + " __kbcc_tile[" + t + "][" + t + " + 1];\n" +
               loop + *first + "}\n" + label_if_used(*first, "__kbcc_next1") + "  }\n  __syncthreads();\n" + loop +
               *second + "}\n" + label_if_used(*second, "__kbcc_next2") + "  }\n" + src.substr(close);
  out.launch = tile_mapping(p->space, tile, tile, tile, tile / rows);
  out.numerics = cache::kNumericsExact;
  out.size_params.assign(p->space.bound_params.begin(), p->space.bound_params.end());
  return out;
}

} // namespace

Transform transpose_transform() {
  return {"smem_transpose_staging",
          cache::kNumericsExact,
          "a 2-D kernel storing across rows stages its elements in a shared tile and stores the transposed tile "
          "with consecutive threads on consecutive addresses",
          true,
          space,
          apply};
}

} // namespace kbcc::transform
