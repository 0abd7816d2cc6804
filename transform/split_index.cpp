// The 2-D form of a 1-D kernel that splits its global index into a row and
// a column (items_form.h, "Indexes split into a row and a column").
#include "transform/analysis.h"
#include "transform/edits.h"
#include "transform/items_form.h"
#include "transform/transform.h"
#include "transform/uniform.h"

#include "clang/AST/Decl.h"

#include <functional>
#include <set>

namespace kbcc::transform {
using namespace clang;

namespace {

const char *const kColumnIndex = "blockIdx.x * blockDim.x + threadIdx.x";
const char *const kRowIndex = "blockIdx.y * blockDim.y + threadIdx.y";

// The top-level declaration `T i = <global index in x>;` of `body` whose
// variable nothing assigns; nullptr when there is none.
const DeclStmt *index_declaration_of(const CompoundStmt *body, const VarDecl *&index) {
  for (const Stmt *s : body->body()) {
    const auto *d = dyn_cast<DeclStmt>(s);
    const auto *v = d && d->isSingleDecl() ? dyn_cast<VarDecl>(d->getSingleDecl()) : nullptr;
    if (!v || !v->getInit() || !v->getType()->isIntegerType() || assigns(body, v)) continue;
    auto g = as_global_index(v->getInit()->IgnoreParenImpCasts());
    if (g && g->dim == 0) {
      index = v;
      return d;
    }
  }
  return nullptr;
}

// `i / W` and `i % W` of the kernel, with W the same expression in each.
// `mods` also holds `i - r * W` (or `i - W * r`) with r a local holding
// `i / W`: the remainder written out.
struct Split {
  const Expr *width = nullptr;
  std::vector<const BinaryOperator *> divs, mods;
};

// The local `e` names when its one value is one of `divs`; nullptr otherwise.
const VarDecl *row_local(const Expr *e, const std::vector<const BinaryOperator *> &divs) {
  const VarDecl *v = var_of(e);
  const Expr *value = v && v->hasLocalStorage() && !isa<ParmVarDecl>(v) ? value_of(v) : nullptr;
  if (!value) return nullptr;
  for (const BinaryOperator *d : divs)
    if (value->IgnoreParenImpCasts() == d) return v;
  return nullptr;
}

// The divisions and remainders of `index` in `body`. Error when their
// divisors differ.
Expected<Split> find_split(const CompoundStmt *body, const VarDecl *index, const ASTContext &ctx) {
  Split s;
  std::string why;
  auto divisor = [&](const Expr *w) {
    if (s.width && !same_expr(s.width, w, ctx)) why = "the index is divided by two different values";
    if (!s.width) s.width = w;
  };
  walk(body, [&](const Stmt *x) {
    const auto *b = dyn_cast<BinaryOperator>(x);
    if (!b || (b->getOpcode() != BO_Div && b->getOpcode() != BO_Rem) || !names(b->getLHS(), index)) return;
    divisor(b->getRHS());
    (b->getOpcode() == BO_Div ? s.divs : s.mods).push_back(b);
  });
  walk(body, [&](const Stmt *x) {
    const auto *b = dyn_cast<BinaryOperator>(x);
    const auto *p = b && b->getOpcode() == BO_Sub && names(b->getLHS(), index)
                        ? dyn_cast<BinaryOperator>(b->getRHS()->IgnoreParenImpCasts())
                        : nullptr;
    if (!p || p->getOpcode() != BO_Mul || !s.width) return;
    for (auto [r, w] : {std::pair(p->getLHS(), p->getRHS()), std::pair(p->getRHS(), p->getLHS())})
      if (row_local(r, s.divs) && same_expr(w, s.width, ctx)) {
        s.mods.push_back(b);
        return;
      }
  });
  if (!why.empty()) return not_applicable(why);
  if (s.divs.empty() || s.mods.empty())
    return make_error("the kernel does not split its index into a row (i / W) and a column (i % W)", "no-form");
  return s;
}

// Whether `s` may run for a thread the original did not have: it touches no
// memory, calls nothing, does not return and divides only by `split`'s
// divisor (at least 1) or by non-zero constants.
bool harmless(const Stmt *s, const Split &split, const ASTContext &ctx) {
  if (reads_memory(s) || writes_memory(s) || has_return(s)) return false;
  bool ok = true;
  walk(s, [&](const Stmt *x) {
    if (isa<CallExpr>(x)) ok = false;
    const auto *b = dyn_cast<BinaryOperator>(x);
    if (!b || (b->getOpcode() != BO_Div && b->getOpcode() != BO_Rem && b->getOpcode() != BO_DivAssign &&
               b->getOpcode() != BO_RemAssign))
      return;
    auto c = constant_value(b->getRHS(), ctx);
    if (!(c && *c != 0) && !same_expr(b->getRHS(), split.width, ctx)) ok = false;
  });
  return ok;
}

// Whether the name of `v` is declared once in the kernel.
bool unique_name(const KernelAst &k, const VarDecl *v) {
  int same_name = 0;
  for (const ParmVarDecl *p : k.kernel()->parameters())
    same_name += p->getName() == v->getName();
  walk(k.kernel()->getBody(), [&](const Stmt *x) {
    if (const auto *d = dyn_cast<DeclStmt>(x))
      for (const Decl *decl : d->decls())
        if (const auto *nd = dyn_cast<NamedDecl>(decl)) same_name += nd->getName() == v->getName();
  });
  return same_name == 1;
}

// A declaration of the row or the column that moves to the index's place.
struct Moved {
  const VarDecl *var = nullptr;
  const DeclStmt *statement = nullptr; // declares only rows and columns
};

// The variable to hold a row or a column: one declared `T v = <op>;` with
// `op` one of `ops`, in a statement at the top level of `scopes` whose every
// declarator is such a row or column (of `all`), unassigned, its name
// declared once in the kernel; none when there is no such variable.
Moved movable(const KernelAst &k, const std::vector<const BinaryOperator *> &ops,
              const std::vector<const BinaryOperator *> &all, const std::vector<const CompoundStmt *> &scopes) {
  auto one_of = [](const Expr *e, const std::vector<const BinaryOperator *> &list) {
    for (const BinaryOperator *op : list)
      if (e && e->IgnoreParenImpCasts() == op) return true;
    return false;
  };
  for (const CompoundStmt *scope : scopes)
    for (const Stmt *s : scope->body()) {
      const auto *d = dyn_cast<DeclStmt>(s);
      if (!d) continue;
      Moved found;
      bool whole = true;
      for (const Decl *decl : d->decls()) {
        const auto *v = dyn_cast<VarDecl>(decl);
        bool split = v && v->getType()->isIntegerType() && one_of(v->getInit(), all) &&
                     !assigns(k.kernel()->getBody(), v) && unique_name(k, v);
        whole = whole && split;
        if (split && one_of(v->getInit(), ops)) found = Moved{v, d};
      }
      if (whole && found.var) return found;
    }
  return Moved{};
}

// The guard that bounds the items, and how the form writes it.
struct Bound {
  const IfStmt *guard = nullptr;
  bool keeps = false;      // `if (T && ...) { work }` rather than `if (T || ...) return;`
  std::string rows, items; // mapping expressions: rows of W items, items the original ran
  size_t term_begin = 0, term_end = 0;
  std::string term; // the term `i < P * W` rewritten `row < P`, or "" when it stays
};

// The first guard of `body` bounding `index` (i < B, i >= B, P * W for B
// written row < P) or a local holding its row (r < P); error when none does.
Expected<Bound> find_bound(const KernelAst &k, const CompoundStmt *body, const VarDecl *index,
                           const std::string &row_name, const Split &split, const std::string &width) {
  for (const Stmt *s : body->body()) {
    const auto *i = dyn_cast<IfStmt>(s);
    if (!i || i->getElse() || i->hasInitStorage() || i->hasVarStorage()) continue;
    bool keeps = !only_returns(i->getThen());
    if (keeps && s != body->body_back()) continue;
    std::vector<const Expr *> terms;
    split_terms(i->getCond(), keeps ? BO_LAnd : BO_LOr, terms);
    for (const Expr *t : terms) {
      const Expr *b = keeps ? less_than_bound(t, index) : at_least_bound(t, index);
      const Expr *r = nullptr;
      if (const auto *c = dyn_cast<BinaryOperator>(t->IgnoreParenImpCasts()); c && !b) {
        bool row_first = (c->getOpcode() == BO_LT && keeps) || (c->getOpcode() == BO_GE && !keeps);
        bool row_second = (c->getOpcode() == BO_GT && keeps) || (c->getOpcode() == BO_LE && !keeps);
        if (row_first && row_local(c->getLHS(), split.divs)) r = c->getRHS();
        if (row_second && row_local(c->getRHS(), split.divs)) r = c->getLHS();
      }
      if (!b && !r) continue;
      Bound out;
      out.guard = i;
      out.keeps = keeps;
      auto bound = as_mapping_expr(b ? b : r);
      if (!bound || !block_uniform(b ? b : r)) continue;
      if (r) {
        out.rows = *bound;
        out.items = "(" + *bound + ") * (" + width + ")";
        return out;
      }
      const auto *product = dyn_cast<BinaryOperator>(b->IgnoreParenImpCasts());
      const Expr *rows = nullptr;
      if (product && product->getOpcode() == BO_Mul) {
        if (same_expr(product->getRHS(), split.width, k.context())) rows = product->getLHS();
        if (same_expr(product->getLHS(), split.width, k.context())) rows = product->getRHS();
      }
      size_t tb = 0, tx = 0, pb = 0, px = 0;
      if (rows && k.file_span(t->getSourceRange(), tb, tx) && k.file_span(rows->getSourceRange(), pb, px)) {
        out.term_begin = tb;
        out.term_end = tx;
        out.term = row_name + (keeps ? " < (" : " >= (") + k.source().substr(pb, px - pb) + ")";
        out.rows = *as_mapping_expr(rows);
      } else {
        out.rows = "ceil_div(" + *bound + ", " + width + ")";
      }
      out.items = *bound;
      return out;
    }
  }
  return not_applicable("no guard bounds the index (i < B or i >= B) or its row");
}

std::string declaration(const std::string &type, const std::string &name, const std::string &value) {
  return type + " " + name + " = " + value + ";";
}

} // namespace

Expected<ItemsForm> split_index_form(const KernelAst &k, const CompoundStmt *body) {
  const VarDecl *index = nullptr;
  const DeclStmt *index_decl = index_declaration_of(body, index);
  if (!index_decl) return make_error("the kernel declares no global index in x", "no-form");
  auto split = find_split(body, index, k.context());
  if (!split) return split.error();
  std::set<const Stmt *> in_index;
  walk(index->getInit(), [&](const Stmt *s) { in_index.insert(s); });
  IndexUses uses = index_uses(body);
  for (const Builtin &b : uses.other)
    if (!in_index.count(b.expr)) return not_applicable("the kernel reads a CUDA builtin outside its global index");
  for (const GlobalIndex &g : uses.global)
    if (!in_index.count(g.expr)) return not_applicable("the kernel reads a CUDA builtin outside its global index");
  Effects fx = effects_in(body);
  if (fx.barrier || fx.warp_ops || fx.shared_memory || fx.inline_asm || fx.device_launch)
    return not_applicable("the kernel synchronizes threads, uses warp-level operations or shared memory");
  const Expr *w = split->width;
  auto width_map = as_mapping_expr(w);
  auto width = uniform_text(k, w); // parenthesized, locals written as their values
  if (!w->getType()->isIntegerType() || !block_uniform(w) || !width_map || !width)
    return not_applicable("the divisor of the index is not an expression of integer parameters");

  // The row and column variables: declarations moved up, or new ones.
  const IfStmt *work = work_block(body);
  std::vector<const CompoundStmt *> scopes{body};
  if (work) scopes.push_back(cast<CompoundStmt>(work->getThen()));
  std::vector<const BinaryOperator *> all = split->divs;
  all.insert(all.end(), split->mods.begin(), split->mods.end());
  Moved row_decl = movable(k, split->divs, all, scopes), col_decl = movable(k, split->mods, all, scopes);
  auto type = [&](QualType t) { return type_text(t, k.context()); };
  std::string row = row_decl.var ? row_decl.var->getName().str() : "__kbcc_row";
  std::string col = col_decl.var ? col_decl.var->getName().str() : "__kbcc_col";
  auto bound = find_bound(k, body, index, row, *split, *width_map);
  if (!bound) return bound.error();

  // Threads the original did not have run what comes before the guard, and
  // threads past the bound that it had do not: that code must do nothing.
  for (const Stmt *s : body->body()) {
    if (s == bound->guard) break;
    if (s != index_decl && !harmless(s, *split, k.context()))
      return not_applicable("a statement before the guard touches memory, calls a function or divides");
  }

  Edits e;
  std::set<const BinaryOperator *> moved;
  std::string head;
  std::set<const DeclStmt *> removed;
  bool same_types = true; // the row's, the column's and the index's
  for (auto [decl, name, idiom, ops] :
       {std::tuple(col_decl, col, kColumnIndex, &split->mods), std::tuple(row_decl, row, kRowIndex, &split->divs)}) {
    QualType held = decl.var ? decl.var->getType() : ops->front()->getType();
    same_types = same_types && held.getCanonicalType().getUnqualifiedType() ==
                                   index->getType().getCanonicalType().getUnqualifiedType();
    head += declaration(type(held), name, idiom) + " ";
    if (!decl.var) continue;
    moved.insert(cast<BinaryOperator>(decl.var->getInit()->IgnoreParenImpCasts()));
    size_t db = statement_begin(k, decl.statement), dx = statement_end(k, decl.statement);
    if (db == std::string::npos || dx == std::string::npos)
      return not_applicable("the index's row or column is written in a macro");
    if (removed.insert(decl.statement).second) e.replace(db, dx, "");
  }
  // What still reads the index (all but its row, its column and the bound
  // rewritten) reads `row * W + col` in its place: the 2-D transforms read
  // the accesses as affine in the row and the column.
  std::set<const Stmt *> split_reads;
  for (const auto *ops : {&split->divs, &split->mods})
    for (const BinaryOperator *op : *ops)
      split_reads.insert(op->getLHS()->IgnoreParenImpCasts());
  std::string index_type = type(index->getType());
  std::string index_value =
      same_types ? "(" + row + " * " + *width + " + " + col + ")"
                 : "((" + index_type + ")(" + row + ") * " + *width + " + (" + index_type + ")(" + col + "))";
  bool index_read = false;
  std::string why;
  walk(body, [&](const Stmt *x) {
    const auto *ref = dyn_cast<DeclRefExpr>(x);
    if (!ref || ref->getDecl() != index || split_reads.count(x) || !why.empty()) return;
    size_t rb = 0, rx = 0;
    if (!k.span(x->getSourceRange(), rb, rx))
      why = "the index is read in a macro";
    else if (bound->term.empty() || rb < bound->term_begin || rb >= bound->term_end) {
      e.replace(rb, rx, index_value);
      index_read = true;
    }
  });
  if (!why.empty()) return not_applicable(why);
  size_t ib = statement_begin(k, index_decl), ix = statement_end(k, index_decl);
  if (ib == std::string::npos || ix == std::string::npos)
    return not_applicable("the global index is written in a macro");
  e.replace(ib, ix, head);
  for (const auto *ops : {&split->divs, &split->mods})
    for (const BinaryOperator *op : *ops) {
      if (moved.count(op)) continue;
      size_t ob = 0, ox = 0;
      if (!k.span(op->getSourceRange(), ob, ox))
        return not_applicable("the index's row or column is written in a macro");
      e.replace(ob, ox, "(" + std::string(ops == &split->divs ? row : col) + ")");
    }
  if (!bound->term.empty()) e.replace(bound->term_begin, bound->term_end, bound->term);
  size_t cb = 0, cx = 0;
  if (!k.span(bound->guard->getCond()->getSourceRange(), cb, cx))
    return not_applicable("the guard is written in a macro");
  e.insert(cb, bound->keeps ? "(" + col + " < " + *width + ") && " : "(" + col + " >= " + *width + ") || ");
  auto text = e.apply(k.source());
  if (!text) return not_applicable("the form's edits overlap: " + text.error().message);

  ItemsForm out;
  out.source = *text;
  out.launch.grid = {"ceil_div(" + *width_map + ", 32)", "ceil_div(" + bound->rows + ", ceil_div(block.x, 32))", "1"};
  out.launch.block = {"32", "ceil_div(block.x, 32)", "1"};
  out.launch.shared = "0";
  out.launch.preconditions = {"grid.y == 1",
                              "grid.z == 1",
                              "block.y == 1",
                              "block.z == 1",
                              "shared == 0",
                              *width_map + " >= 1",
                              "grid.x * block.x >= " + bound->items};
  if (index_read && k.context().getTypeSize(index->getType()) <= 32)
    out.launch.preconditions.push_back("(" + bound->rows + " + 16384) * (" + *width_map + ") <= 2147483647");
  return out;
}

} // namespace kbcc::transform
