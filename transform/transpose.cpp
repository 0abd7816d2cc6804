// smem_transpose_staging: a 2-D global-index kernel whose single store moves
// by one element with the y index (and by more with x) writes uncoalesced.
// Each thread now computes its elements (`rows` of them, tile / rows apart
// in y) into a shared tile, and after a barrier stores the elements of the
// transposed positions, so consecutive threads store consecutive addresses.
// The mirror form: when the store does not move that way but the stored
// value reads elements that do (a gather, in[x * n + y]), a first pass at
// the transposed positions loads those elements into tiles, consecutive
// threads at consecutive addresses, and the body then runs as written with
// each gather reading its tile. A 1-D kernel goes to the row form
// (transform/row_streams.h): a thread-per-row serial loop reads its rows
// through tiles the block loads contiguously.
//
// Legal when: builtins only in the x and y global indexes, held by one index
// variable each; no barriers, warp operations, shared memory or atomics; the
// body's only memory write is one assignment a[S] = RHS, RHS does not read a,
// and no other statement reads memory (so a second pass re-reads nothing);
// the store form: S has the y variable as a plain term and the x variable
// otherwise; the gather form: each gather's index does the same and reads no
// memory, and RHS evaluates the gather whenever it runs (not under ?:, && or
// ||), so the first pass loads exactly the elements the kernel reads, under
// the same conditions at the same positions.
#include "cache/variant.h"
#include "transform/edits.h"
#include "transform/index_space.h"
#include "transform/row_streams.h"
#include "transform/transform.h"

#include <algorithm>
#include <functional>

namespace kbcc::transform {
using namespace clang;

namespace {

struct Plan {
  IndexSpace space;
  const VarDecl *x = nullptr, *y = nullptr;
  const BinaryOperator *store = nullptr;
  std::string element;                             // the store form's tile element
  std::vector<const ArraySubscriptExpr *> gathers; // the gather form's reads, one tile each
};

// Whether index `e` moves by one element with y and by more with x.
bool transposed(const Expr *e, const VarDecl *x, const VarDecl *y) {
  return unit_stride(e, y) && !unit_stride(e, x) && refers_to(e, x);
}

// The reads of parameter arrays in `e` at transposed indexes that `e`
// evaluates whenever it runs: not in a branch of ?: nor right of && or ||.
void unconditional_gathers(const Expr *e, const VarDecl *x, const VarDecl *y,
                           std::vector<const ArraySubscriptExpr *> &out) {
  e = e->IgnoreParenImpCasts();
  if (const auto *c = dyn_cast<AbstractConditionalOperator>(e)) return unconditional_gathers(c->getCond(), x, y, out);
  if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->isLogicalOp())
    return unconditional_gathers(b->getLHS(), x, y, out);
  if (const auto *a = dyn_cast<ArraySubscriptExpr>(e);
      a && root_parameter(a->getBase()) && transposed(a->getIdx(), x, y) && !reads_memory(a->getIdx())) {
    out.push_back(a);
    return;
  }
  for (const Stmt *c : e->children())
    if (const auto *ce = dyn_cast_or_null<Expr>(c)) unconditional_gathers(ce, x, y, out);
}

Expected<Plan> analyze(const KernelAst &k) {
  auto idx = index_2d(k, /*allow_batch=*/true);
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
  if (!transposed(sub->getIdx(), p.x, p.y)) {
    unconditional_gathers(p.store->getRHS(), p.x, p.y, p.gathers);
    if (p.gathers.empty())
      return not_applicable("the store is not strided in x and contiguous in y, nor are the stored value's reads "
                            "that it always makes");
  }
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
  if (!p) {
    auto rows = row_streams_space(in);
    if (rows) return rows;
    return not_applicable(p.error().message + "; as rows read in a serial loop: " + rows.error().message);
  }
  return std::vector<Axis>{{"tile", {"32", "16"}}, {"rows", {"4", "1", "8", "2"}}};
}

// A span of the kernel's source and the text that replaces it.
struct Replacement {
  size_t begin = 0, end = 0;
  std::string text;
};

// The edit of global index `g` to the pass's x or y index.
Replacement item_index(const KernelAst &k, const GlobalIndex &g, const std::string &x_index,
                       const std::string &y_index) {
  Replacement r;
  if (!k.span(g.expr->getSourceRange(), r.begin, r.end)) return {};
  r.text = as_index(k.source().substr(r.begin, r.end - r.begin), g.dim == 0 ? x_index : y_index);
  return r;
}

// The text of `e` with its global indexes turned into the pass's indexes.
Expected<std::string> indexed_text(const KernelAst &k, const Plan &p, const Expr *e, const std::string &x_index,
                                   const std::string &y_index) {
  size_t b = 0, x = 0;
  if (!k.span(e->getSourceRange(), b, x)) return not_applicable("a staged read is written in a macro");
  Edits edits;
  for (const GlobalIndex &g : p.space.occurrences) {
    Replacement r = item_index(k, g, x_index, y_index);
    if (r.end == 0) return not_applicable("the global index is written in a macro");
    if (r.begin >= b && r.end <= x) edits.replace(r.begin - b, r.end - b, r.text);
  }
  return edits.apply(k.source().substr(b, x - b));
}

// The body's inner text for one pass: the global indexes turned into
// x_index and y_index, except inside the replaced spans, which take their
// text; a return jumps to `label` (the pass's next row).
Expected<std::string> pass_text(const KernelAst &k, const Plan &p, const std::string &x_index,
                                const std::string &y_index, const std::vector<Replacement> &replaced,
                                const std::string &label) {
  const std::string &src = k.source();
  Edits e;
  for (const GlobalIndex &g : p.space.occurrences) {
    Replacement r = item_index(k, g, x_index, y_index);
    if (r.end == 0) return not_applicable("the global index is written in a macro");
    bool inside = std::any_of(replaced.begin(), replaced.end(),
                              [&](const Replacement &x) { return r.begin >= x.begin && r.end <= x.end; });
    if (!inside) e.replace(r.begin, r.end, r.text);
  }
  for (const Replacement &r : replaced)
    e.replace(r.begin, r.end, r.text);
  if (auto st = returns_to_goto(k, p.space.body, label, e); !st) return st.error();
  auto text = e.apply(src);
  if (!text) return text.error();
  // Only the body's inner text: offsets move with the edits, so find it anew.
  size_t open = k.offset(p.space.body->getLBracLoc());
  size_t shift = text->size() - src.size();
  size_t close = k.offset(p.space.body->getRBracLoc()) + shift;
  return text->substr(open + 1, close - open - 1);
}

// The span of `e` replaced by `text`; end 0 when `e` is written in a macro.
Replacement replacing(const KernelAst &k, const Expr *e, std::string text) {
  Replacement r;
  if (!k.span(e->getSourceRange(), r.begin, r.end)) return {};
  r.text = std::move(text);
  return r;
}

Expected<Output> apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto p = analyze(k);
  if (!p) return row_streams_space(in) ? row_streams_apply(in, params) : space(in).error();
  long tile = int_param(params, "tile", 32), rows = int_param(params, "rows", 1);
  if (tile != 16 && tile != 32) return not_applicable("tile must be 16 or 32");
  if (rows < 1 || rows > tile / 2 || tile % rows) return not_applicable("rows must divide the tile");
  // A block of tile x (tile / rows) threads; each thread handles `rows`
  // elements of its column of the tile, (tile / rows) apart.
  std::string t = std::to_string(tile), ty = std::to_string(tile / rows), r = std::to_string(rows);
  std::string row = "(threadIdx.y + __kbcc_r * " + ty + ")";
  std::string down_x = "blockIdx.x * " + t + " + threadIdx.x", down_y = "blockIdx.y * " + t + " + " + row;
  std::string across_x = "blockIdx.x * " + t + " + " + row, across_y = "blockIdx.y * " + t + " + threadIdx.x";
  std::string tiles;
  std::vector<Replacement> first_edits, second_edits;
  if (p->gathers.empty()) { // the store form: compute into the tile, store it transposed
    tiles = "\n  __shared__ " + p->element + " __kbcc_tile[" + t + "][" + t + " + 1];";
    first_edits = {replacing(k, p->store->getLHS(), "__kbcc_tile[" + row + "][threadIdx.x]")};
    second_edits = {replacing(k, p->store->getRHS(), "__kbcc_tile[threadIdx.x][" + row + "]")};
  } else { // the gather form: load the gathers transposed, run the body on the tiles
    std::string loads;
    for (size_t g = 0; g < p->gathers.size(); ++g) {
      std::string name = "__kbcc_tile" + (g ? std::to_string(g) : "");
      tiles += "\n  __shared__ " + p->gathers[g]->getType().getUnqualifiedType().getAsString() + " " + name + "[" + t +
               "][" + t + " + 1];";
      auto read = indexed_text(k, *p, p->gathers[g], across_x, across_y);
      if (!read) return read.error();
      loads += (g ? ", " : "") + name + "[" + row + "][threadIdx.x] = (" + *read + ")";
      second_edits.push_back(replacing(k, p->gathers[g], name + "[threadIdx.x][" + row + "]"));
    }
    first_edits = {replacing(k, p->store, "(" + loads + ")")};
  }
  for (const auto *edits : {&first_edits, &second_edits})
    for (const Replacement &x : *edits)
      if (x.end == 0) return not_applicable("the store is written in a macro");
  bool gather = !p->gathers.empty();
  auto first = pass_text(k, *p, gather ? across_x : down_x, gather ? across_y : down_y, first_edits, "__kbcc_next1");
  if (!first) return first.error();
  auto second = pass_text(k, *p, gather ? down_x : across_x, gather ? down_y : across_y, second_edits, "__kbcc_next2");
  if (!second) return second.error();
  const std::string &src = k.source();
  size_t open = k.offset(p->space.body->getLBracLoc()), close = k.offset(p->space.body->getRBracLoc());
  std::string loop = "  #pragma unroll\n  for (int __kbcc_r = 0; __kbcc_r < " + r + "; ++__kbcc_r) {\n  {";
  Output out;
  out.source = src.substr(0, open + 1) + tiles + "\n" + loop + *first + "}\n" + label_if_used(*first, "__kbcc_next1") +
               "  }\n  __syncthreads();\n" + loop + *second + "}\n" + label_if_used(*second, "__kbcc_next2") + "  }\n" +
               src.substr(close);
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
