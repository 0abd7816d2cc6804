#include "transform/items_form.h"

#include "transform/analysis.h"
#include "transform/edits.h"
#include "transform/index_space.h"
#include "transform/transform.h"
#include "transform/uniform.h"

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <functional>
#include <map>
#include <set>

namespace kbcc::transform {
using namespace clang;

namespace {

const Expr *strip(const Expr *e) { return e ? e->IgnoreParenCasts() : nullptr; }

const VarDecl *local_named(const Expr *e) {
  const auto *ref = dyn_cast_or_null<DeclRefExpr>(strip(e));
  const auto *v = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  return v && v->hasLocalStorage() && !isa<ParmVarDecl>(v) ? v : nullptr;
}

// Whether `e` is blockDim.d * gridDim.d (either order) for dimension `dim`,
// or a local whose value is.
bool is_stride(const Expr *e, int dim) {
  if (const VarDecl *v = local_named(e)) return value_of(v) && is_stride(value_of(v), dim);
  const auto *b = dyn_cast_or_null<BinaryOperator>(strip(e));
  if (!b || b->getOpcode() != BO_Mul) return false;
  auto l = as_builtin(b->getLHS()), r = as_builtin(b->getRHS());
  if (!l || !r || l->dim != dim || r->dim != dim) return false;
  return (l->var == Builtin::BlockDim && r->var == Builtin::GridDim) ||
         (l->var == Builtin::GridDim && r->var == Builtin::BlockDim);
}

// Whether `e` is the global index of dimension `dim`, or a local whose value is.
bool is_start(const Expr *e, int dim) {
  if (const VarDecl *v = local_named(e)) return value_of(v) && is_start(value_of(v), dim);
  auto g = as_global_index(strip(e));
  return g && g->dim == dim;
}

// Whether `e` is `v += s` or `v = v + s` (either order) with `stride(s)`.
bool steps_by(const Expr *e, const VarDecl *v, const std::function<bool(const Expr *)> &stride) {
  e = e ? e->IgnoreParens() : nullptr;
  if (const auto *c = dyn_cast_or_null<CompoundAssignOperator>(e))
    return c->getOpcode() == BO_AddAssign && names(c->getLHS(), v) && stride(c->getRHS());
  const auto *b = dyn_cast_or_null<BinaryOperator>(e);
  if (!b || b->getOpcode() != BO_Assign || !names(b->getLHS(), v)) return false;
  const auto *sum = dyn_cast<BinaryOperator>(strip(b->getRHS()));
  return sum && sum->getOpcode() == BO_Add &&
         ((names(sum->getLHS(), v) && stride(sum->getRHS())) || (names(sum->getRHS(), v) && stride(sum->getLHS())));
}

// Whether `e` is `v += stride` or `v = v + stride` (either order), the
// grid stride of dimension `dim`.
bool is_step(const Expr *e, const VarDecl *v, int dim) {
  return steps_by(e, v, [dim](const Expr *s) { return is_stride(s, dim); });
}

// Calls `fn` on every break/continue/return/goto under `s` that leaves the
// statement it is written in: break and continue not inside a nested loop
// (or, for break, switch).
void exits(const Stmt *s, bool in_loop, bool in_switch, const std::function<void(const Stmt *)> &fn) {
  if (!s) return;
  if (isa<ReturnStmt>(s) || isa<GotoStmt>(s) || isa<IndirectGotoStmt>(s) || (isa<ContinueStmt>(s) && !in_loop) ||
      (isa<BreakStmt>(s) && !in_loop && !in_switch))
    fn(s);
  bool loop = isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s);
  for (const Stmt *c : s->children())
    exits(c, in_loop || loop, in_switch || isa<SwitchStmt>(s), fn);
}

std::vector<const Stmt *> statements_of(const Stmt *s) {
  if (const auto *c = dyn_cast_or_null<CompoundStmt>(s)) return {c->body_begin(), c->body_end()};
  return s ? std::vector<const Stmt *>{s} : std::vector<const Stmt *>{};
}

// Whether, running `list` in order, every path writes `u` (a plain `u = E`
// with E not reading it) before reading it.
bool written_before_read(const std::vector<const Stmt *> &list, const VarDecl *u) {
  for (size_t i = 0; i < list.size(); ++i) {
    const Stmt *s = list[i];
    if (!refers_to(s, u)) continue;
    auto sets = [&](const Stmt *x) {
      const auto *b = dyn_cast_or_null<BinaryOperator>(x);
      return b && b->getOpcode() == BO_Assign && names(b->getLHS(), u) && !refers_to(b->getRHS(), u);
    };
    if (sets(s)) return true;
    if (const auto *f = dyn_cast<ForStmt>(s); f && sets(f->getInit())) return true;
    bool later = false;
    for (size_t j = i + 1; j < list.size(); ++j)
      later = later || refers_to(list[j], u);
    if (later) return false;
    // Every reference is inside `s`: each pass through its parts must write first.
    if (const auto *w = dyn_cast<WhileStmt>(s))
      return !refers_to(w->getCond(), u) && written_before_read(statements_of(w->getBody()), u);
    if (const auto *f = dyn_cast<ForStmt>(s))
      return !refers_to(f->getInit(), u) && !refers_to(f->getCond(), u) && !refers_to(f->getInc(), u) &&
             written_before_read(statements_of(f->getBody()), u);
    if (const auto *c = dyn_cast<IfStmt>(s))
      return !refers_to(c->getCond(), u) && written_before_read(statements_of(c->getThen()), u) &&
             written_before_read(statements_of(c->getElse()), u);
    if (isa<CompoundStmt>(s)) return written_before_read(statements_of(s), u);
    return false;
  }
  return true;
}

// Whether `e` is `v` combined with terms not reading it by + - * only, `v`
// occurring once: distinct values of `v` give distinct values of `e`.
bool injective_in(const Expr *e, const VarDecl *v) {
  e = strip(e);
  if (names(e, v)) return true;
  const auto *b = dyn_cast_or_null<BinaryOperator>(e);
  if (!b || (b->getOpcode() != BO_Add && b->getOpcode() != BO_Sub && b->getOpcode() != BO_Mul)) return false;
  bool l = refers_to(b->getLHS(), v), r = refers_to(b->getRHS(), v);
  if (l == r) return false;
  return injective_in(l ? b->getLHS() : b->getRHS(), v);
}

// The local array `e` indexes, when it is one.
const VarDecl *local_array(const ArraySubscriptExpr *e) {
  const auto *ref = dyn_cast<DeclRefExpr>(strip(e->getBase()));
  const auto *v = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  return v && v->hasLocalStorage() && v->getType()->isArrayType() ? v : nullptr;
}

// The lvalue `s` stores to memory through (an assignment, compound
// assignment, ++/--, an operator=), members of an element stripped to the
// element; nullptr when `s` is no store to memory (local arrays included).
const Expr *stored(const Stmt *s) {
  const Expr *target = nullptr;
  if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp()) target = b->getLHS();
  if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp()) target = u->getSubExpr();
  if (const auto *op = dyn_cast<CXXOperatorCallExpr>(s); op && op->isAssignmentOp()) target = op->getArg(0);
  if (!target || !is_memory(target)) return nullptr;
  target = strip(target);
  for (const auto *m = dyn_cast<MemberExpr>(target); m && !m->isArrow(); m = dyn_cast<MemberExpr>(target))
    target = strip(m->getBase());
  return target;
}

// Whether `index` names a different element for each item of a loop over
// `items` (one variable or two).
using Distinct = std::function<bool(const Expr *index)>;

// Why the items of the loop whose body is `body` (item variables `items`)
// are not independent; "" when they are.
std::string dependence(const Stmt *body, const std::set<const VarDecl *> &items, const Distinct &distinct,
                       const std::string &loop = "grid-stride loop") {
  std::string why;
  exits(body, false, false, [&](const Stmt *x) {
    if (why.empty() && !isa<ContinueStmt>(x)) why = "a break, goto or return leaves the " + loop;
  });
  if (!why.empty()) return why;
  // Locals and parameters the loop assigns.
  std::set<const VarDecl *> assigned;
  walk(body, [&](const Stmt *x) {
    if (const auto *ref = dyn_cast<DeclRefExpr>(x))
      if (const auto *u = dyn_cast<VarDecl>(ref->getDecl());
          u && !items.count(u) && u->hasLocalStorage() && assigns(body, u))
        assigned.insert(u);
  });
  std::set<const Decl *> inside; // declared in the loop: each item's own
  walk(body, [&](const Stmt *x) {
    if (const auto *d = dyn_cast<DeclStmt>(x)) inside.insert(d->decl_begin(), d->decl_end());
  });
  for (const VarDecl *u : assigned) {
    if (inside.count(u)) continue;
    if (isa<ParmVarDecl>(u)) return "the " + loop + " assigns parameter '" + u->getName().str() + "'";
    if (!written_before_read(statements_of(body), u))
      return "'" + u->getName().str() + "' carries a value from one item of the " + loop + " to the next";
  }
  // Local arrays it writes must be its own.
  walk(body, [&](const Stmt *x) {
    const auto *b = dyn_cast<BinaryOperator>(x);
    const auto *sub = b && b->isAssignmentOp() ? dyn_cast<ArraySubscriptExpr>(strip(b->getLHS())) : nullptr;
    const VarDecl *a = sub ? local_array(sub) : nullptr;
    if (why.empty() && a && !inside.count(a))
      why = "'" + a->getName().str() + "' carries values from one item of the " + loop + " to the next";
  });
  if (!why.empty()) return why;
  // Arrays stored to: one index each, distinct between items.
  std::map<const ParmVarDecl *, const Expr *> index;
  walk(body, [&](const Stmt *x) {
    const Expr *target = why.empty() ? stored(x) : nullptr;
    if (!target) return;
    const auto *sub = dyn_cast<ArraySubscriptExpr>(target);
    const ParmVarDecl *root = sub ? root_parameter(sub->getBase()) : nullptr;
    if (!root || !distinct(sub->getIdx()))
      why = "a store of the " + loop + " is not at an index that differs between items";
    else
      index.emplace(root, sub->getIdx());
  });
  if (!why.empty()) return why;
  const ASTContext &ctx = (*items.begin())->getASTContext();
  walk(body, [&](const Stmt *x) {
    if (!why.empty()) return;
    if (const auto *u = dyn_cast<UnaryOperator>(x); u && u->getOpcode() == UO_Deref)
      if (index.count(root_parameter(u->getSubExpr()))) why = "the " + loop + " dereferences an array it stores to";
    if (const auto *sub = dyn_cast<ArraySubscriptExpr>(x)) {
      auto it = index.find(root_parameter(sub->getBase()));
      if (it != index.end() && !same_expr(it->second, sub->getIdx(), ctx))
        why = "the " + loop + " reads '" + it->first->getName().str() +
              "', which it stores to, at another element than the item's";
    }
    if (const auto *call = dyn_cast<CallExpr>(x); call && call->getDirectCallee() &&
                                                  call->getDirectCallee()->hasBody() && writes_memory(call) &&
                                                  effects_in(call).atomic_calls.empty())
      why = "the " + loop + " calls a function that stores to memory";
  });
  return why;
}

// Whether `a` <= `b` is known: the same expression, or integer constants.
bool known_at_most(const Expr *a, const Expr *b, const ASTContext &ctx) {
  if (same_expr(a, b, ctx)) return true;
  auto x = a->IgnoreParenImpCasts()->getIntegerConstantExpr(ctx);
  auto y = b->IgnoreParenImpCasts()->getIntegerConstantExpr(ctx);
  return x && y && x->getExtValue() <= y->getExtValue();
}

// Whether `index` is `major * S + minor + C` (terms in any order, S either
// side of the product), S and C reading neither variable, and the bound of
// `minor` (0 <= minor < minor_bound) at most S: row-major positions of a
// grid of items, distinct for distinct (major, minor).
bool row_major_in(const Expr *index, const VarDecl *major, const VarDecl *minor, const Expr *minor_bound) {
  std::vector<const Expr *> pos, neg;
  signed_terms(index, false, pos, neg);
  for (const Expr *t : neg)
    if (refers_to(t, major) || refers_to(t, minor)) return false;
  const Expr *scale = nullptr;
  int minors = 0;
  for (const Expr *t : pos) {
    if (names(t, minor)) {
      ++minors;
      continue;
    }
    bool reads_major = refers_to(t, major);
    if (refers_to(t, minor) || (reads_major && scale)) return false;
    if (!reads_major) continue;
    const auto *m = dyn_cast<BinaryOperator>(t);
    if (!m || m->getOpcode() != BO_Mul) return false;
    scale = names(strip(m->getLHS()), major) ? m->getRHS() : names(strip(m->getRHS()), major) ? m->getLHS() : nullptr;
    if (!scale || refers_to(scale, major) || refers_to(scale, minor)) return false;
  }
  return minors == 1 && scale && known_at_most(minor_bound, scale, major->getASTContext());
}

// Whether `e` may differ between items of variable `v`: it reads `v`, or a
// local whose one value (value_of) may, or one assigned anywhere.
bool reads_item(const Expr *e, const VarDecl *v, int depth = 8) {
  bool reads = false;
  walk(e, [&](const Stmt *x) {
    const VarDecl *u = local_named(dyn_cast<Expr>(x));
    if (reads || !u || !isa<DeclRefExpr>(x)) return;
    const Expr *value = u == v ? nullptr : value_of(u);
    reads = !value || depth == 0 || reads_item(value, v, depth - 1);
  });
  return reads;
}

// `e` (through parentheses, casts and a local's one value) as `v / W` or
// `v % W`; nullptr when it is neither.
const BinaryOperator *split_part(const Expr *e, const VarDecl *v) {
  e = strip(e);
  if (const VarDecl *u = local_named(e); u && u != v) e = strip(value_of(u));
  const auto *b = dyn_cast_or_null<BinaryOperator>(e);
  if (!b || (b->getOpcode() != BO_Div && b->getOpcode() != BO_Rem) || !names(b->getLHS(), v)) return nullptr;
  return b;
}

// Whether `index` (or the one value of the local it names) is
// `major * S + minor + C`, terms in any order, with {major, minor} item
// `v`'s quotient and remainder by one W (split_part) and S and C not
// reading `v`: the items' positions in a grid of W columns, row-major
// (minor the column, W <= S) or column-major (minor the row, whose bound
// is P when the loop's `bound` is P * W, P <= S). Distinct items below
// `bound` then have distinct positions.
bool split_injective(const Expr *index, const VarDecl *v, const Expr *bound) {
  if (const VarDecl *u = local_named(index); u && u != v && value_of(u)) index = value_of(u);
  std::vector<const Expr *> pos, neg;
  signed_terms(index, false, pos, neg);
  for (const Expr *t : neg)
    if (reads_item(t, v)) return false;
  const BinaryOperator *minor = nullptr, *major = nullptr;
  const Expr *scale = nullptr;
  for (const Expr *t : pos) {
    if (!reads_item(t, v)) continue;
    if (const BinaryOperator *p = split_part(t, v); p && !minor) {
      minor = p;
      continue;
    }
    const auto *m = dyn_cast<BinaryOperator>(strip(t));
    if (major || !m || m->getOpcode() != BO_Mul) return false;
    for (auto [x, s] : {std::pair(m->getLHS(), m->getRHS()), std::pair(m->getRHS(), m->getLHS())})
      if (!major && split_part(x, v) && !reads_item(s, v)) major = split_part(x, v), scale = s;
    if (!major) return false;
  }
  if (!minor || !major || minor->getOpcode() == major->getOpcode()) return false;
  const ASTContext &ctx = v->getASTContext();
  const Expr *width = minor->getRHS();
  if (!same_expr(width, major->getRHS(), ctx)) return false;
  if (minor->getOpcode() == BO_Rem) return known_at_most(width, scale, ctx);
  const auto *product = dyn_cast_or_null<BinaryOperator>(strip(bound));
  if (!product || product->getOpcode() != BO_Mul) return false;
  for (auto [rows, w] :
       {std::pair(product->getLHS(), product->getRHS()), std::pair(product->getRHS(), product->getLHS())})
    if (same_expr(w, width, ctx) && known_at_most(rows, scale, ctx)) return true;
  return false;
}

struct Loop {
  const Stmt *loop = nullptr;
  const VarDecl *item = nullptr;
  const Expr *bound = nullptr;
  const Stmt *body = nullptr;
  const Stmt *step = nullptr;    // for: the increment; while: the body's last statement
  const Expr *start = nullptr;   // the item variable's first value
  const Stmt *restart = nullptr; // while: the assignment of the start before the loop, if any
  int dim = 0;                   // the dimension it strides over
};

// `last` as a grid-stride loop over dimension `dim`, or nullopt. `before`
// holds the statements preceding it in its block; a while loop's start is
// the item variable's initializer or one assignment among them (only the
// assignment when `restarted`: the loop is nested, its start set for each
// pass of the enclosing loop).
std::optional<Loop> loop_at(const Stmt *last, const std::vector<const Stmt *> &before, int dim, bool restarted) {
  Loop l;
  l.loop = last;
  l.dim = dim;
  if (const auto *f = dyn_cast_or_null<ForStmt>(last)) {
    const auto *b = dyn_cast_or_null<BinaryOperator>(f->getCond() ? f->getCond()->IgnoreParenImpCasts() : nullptr);
    l.item = b ? local_named(b->getLHS()) : nullptr;
    if (!l.item || !is_step(f->getInc(), l.item, dim)) return std::nullopt;
    const Stmt *init = f->getInit();
    const Expr *start = nullptr;
    if (const auto *d = dyn_cast_or_null<DeclStmt>(init); d && d->isSingleDecl() && d->getSingleDecl() == l.item)
      start = l.item->getInit();
    if (const auto *a = dyn_cast_or_null<BinaryOperator>(init);
        a && a->getOpcode() == BO_Assign && names(a->getLHS(), l.item))
      start = a->getRHS();
    if (!start || !is_start(start, dim)) return std::nullopt;
    l.start = start;
    l.bound = less_than_bound(f->getCond(), l.item);
    l.body = f->getBody();
    l.step = f->getInc();
  } else if (const auto *w = dyn_cast_or_null<WhileStmt>(last)) {
    const auto *b = dyn_cast_or_null<BinaryOperator>(w->getCond()->IgnoreParenImpCasts());
    l.item = b ? local_named(b->getLHS()) : nullptr;
    const auto *c = dyn_cast<CompoundStmt>(w->getBody());
    if (!l.item || !c || c->body_empty() || !is_step(dyn_cast<Expr>(c->body_back()), l.item, dim)) return std::nullopt;
    const Expr *start = restarted ? nullptr : l.item->getInit();
    for (const Stmt *s : before) {
      const auto *a = dyn_cast<BinaryOperator>(s);
      if (a && a->getOpcode() == BO_Assign && names(a->getLHS(), l.item) && !start) {
        start = a->getRHS();
        l.restart = s;
      } else if (assigns(s, l.item)) {
        return std::nullopt;
      }
    }
    if (!start || !is_start(start, dim)) return std::nullopt;
    l.start = start;
    l.bound = less_than_bound(w->getCond(), l.item);
    l.body = c;
    l.step = c->body_back();
  } else {
    return std::nullopt;
  }
  return l.bound ? std::optional<Loop>(l) : std::nullopt;
}

// The statements of `s`, null statements and `skip` left out.
std::vector<const Stmt *> statements_but(const Stmt *s, const Stmt *skip) {
  std::vector<const Stmt *> out;
  for (const Stmt *x : statements_of(s))
    if (x != skip && !isa<NullStmt>(x)) out.push_back(x);
  return out;
}

// The body's last statement as a grid-stride loop over x, or nullopt.
std::optional<Loop> find_loop(const CompoundStmt *body) {
  auto list = statements_but(body, nullptr);
  if (list.empty()) return std::nullopt;
  const Stmt *last = list.back();
  list.pop_back();
  return loop_at(last, list, 0, false);
}

// Two grid-stride loops, one over x and one over y, the inner one all the
// outer's body but its start.
struct Nest {
  Loop outer, inner;
};

// The body's last statement as a nest of grid-stride loops, or nullopt.
std::optional<Nest> find_nest(const CompoundStmt *body) {
  auto list = statements_but(body, nullptr);
  if (list.empty()) return std::nullopt;
  const Stmt *last = list.back();
  list.pop_back();
  for (int dim : {0, 1}) {
    auto outer = loop_at(last, list, dim, false);
    if (!outer) continue;
    auto in = statements_but(outer->body, isa<WhileStmt>(outer->loop) ? outer->step : nullptr);
    if (in.empty()) continue;
    const Stmt *loop = in.back();
    in.pop_back();
    auto inner = loop_at(loop, in, 1 - dim, true);
    if (inner && in.size() == (inner->restart ? 1u : 0u)) return Nest{*outer, *inner};
  }
  return std::nullopt;
}

// Whether the body of `l` assigns `v` other than by the loop's step.
bool assigned_in_items(const Loop &l, const VarDecl *v) {
  for (const Stmt *s : statements_but(l.body, isa<WhileStmt>(l.loop) ? l.step : nullptr))
    if (assigns(s, v)) return true;
  return false;
}

// The top-level declaration of `u` alone, initialised with the global index.
const DeclStmt *index_declaration(const CompoundStmt *body, const VarDecl *u) {
  for (const Stmt *s : body->body())
    if (const auto *d = dyn_cast<DeclStmt>(s); d && d->isSingleDecl() && d->getSingleDecl() == u)
      return u->getInit() && as_global_index(strip(u->getInit())) ? d : nullptr;
  return nullptr;
}

// Edits making every `continue` of the loop whose body is `body` a `return`
// (in the form, the end of the item).
Status continues_return(const KernelAst &k, const Stmt *body, Edits &e) {
  Status ok = Status::ok();
  exits(body, false, false, [&](const Stmt *x) {
    size_t xb = 0, xx = 0;
    if (!k.span(x->getSourceRange(), xb, xx))
      ok = not_applicable("a continue is written in a macro");
    else
      e.replace(xb, xx, "return");
  });
  return ok;
}

// The text `e` is spelled with in the definition (a macro's argument
// included), parentheses aside; nullopt when its tokens are elsewhere.
std::optional<std::string> spelled(const KernelAst &k, const Expr *e) {
  const SourceManager &sm = k.sources();
  e = e->IgnoreParenImpCasts();
  SourceLocation last = sm.getSpellingLoc(e->getEndLoc());
  size_t b = k.offset(sm.getSpellingLoc(e->getBeginLoc()));
  size_t x = k.offset(Lexer::getLocForEndOfToken(last, 0, sm, k.context().getLangOpts()));
  if (b == std::string::npos || x == std::string::npos || x < b) return std::nullopt;
  return k.source().substr(b, x - b);
}

// For a loop whose header is a macro's expansion: the offset where the
// invocation starts and the text replacing it up to the body,
// `T i = <start>; if (i < (N)) `. Errors: not-applicable.
Expected<std::pair<size_t, std::string>> macro_header(const KernelAst &k, const ForStmt *f, const Loop &l) {
  const SourceManager &sm = k.sources();
  const auto *init = dyn_cast_or_null<DeclStmt>(f->getInit());
  auto bound = spelled(k, l.bound);
  const VarDecl *from = local_named(l.start);
  auto start = from ? std::optional<std::string>(from->getName().str()) : spelled(k, l.start);
  if (!start && as_global_index(strip(l.start))) start = "blockIdx.x * blockDim.x + threadIdx.x";
  size_t at = k.offset(sm.getExpansionRange(f->getBeginLoc()).getBegin());
  if (!init || !bound || !start || at == std::string::npos)
    return not_applicable("the grid-stride loop is written in a macro kbcc cannot read");
  std::string var = l.item->getName().str();
  return std::make_pair(at, type_text(l.item->getType(), k.context()) + " " + var + " = " + *start + "; if (" + var +
                                " < (" + *bound + ")) ");
}

// Whether `e` is (blockIdx.x + blockIdx.y * gridDim.x) * blockDim.x +
// threadIdx.x, operands of each operator in either order.
bool is_flat_index(const Expr *e) {
  auto is = [](const Expr *x, Builtin::Var var, int dim) {
    auto b = as_builtin(x);
    return b && b->var == var && b->dim == dim;
  };
  // One operand satisfies `a`, the other `b`.
  auto pair = [](const Expr *x, BinaryOperatorKind op, const std::function<bool(const Expr *)> &a,
                 const std::function<bool(const Expr *)> &b) {
    const auto *o = dyn_cast_or_null<BinaryOperator>(strip(x));
    return o && o->getOpcode() == op && ((a(o->getLHS()) && b(o->getRHS())) || (a(o->getRHS()) && b(o->getLHS())));
  };
  auto block = [&](const Expr *x) {
    return pair(
        x, BO_Add, [&](const Expr *y) { return is(y, Builtin::BlockIdx, 0); },
        [&](const Expr *y) {
          return pair(
              y, BO_Mul, [&](const Expr *z) { return is(z, Builtin::BlockIdx, 1); },
              [&](const Expr *z) { return is(z, Builtin::GridDim, 0); });
        });
  };
  return pair(
      e, BO_Add, [&](const Expr *x) { return is(x, Builtin::ThreadIdx, 0); },
      [&](const Expr *x) {
        return pair(x, BO_Mul, block, [&](const Expr *y) { return is(y, Builtin::BlockDim, 0); });
      });
}

// The block extent C of `e` when it is blockIdx.d * C + threadIdx.d (in
// any operand order, through casts), C an integer constant from 1 to 1024;
// `dim` gets d.
std::optional<long> fixed_block_index(const Expr *e, const ASTContext &ctx, int &dim) {
  const auto *sum = dyn_cast_or_null<BinaryOperator>(strip(e));
  if (!sum || sum->getOpcode() != BO_Add) return std::nullopt;
  for (auto [t, p] : {std::pair(sum->getLHS(), sum->getRHS()), std::pair(sum->getRHS(), sum->getLHS())}) {
    auto tid = as_builtin(t);
    const auto *mul = dyn_cast<BinaryOperator>(strip(p));
    if (!tid || tid->var != Builtin::ThreadIdx || !mul || mul->getOpcode() != BO_Mul) continue;
    for (auto [b, c] : {std::pair(mul->getLHS(), mul->getRHS()), std::pair(mul->getRHS(), mul->getLHS())}) {
      auto bid = as_builtin(b);
      if (!bid || bid->var != Builtin::BlockIdx || bid->dim != tid->dim) continue;
      auto value = c->IgnoreParenImpCasts()->getIntegerConstantExpr(ctx);
      if (!value || value->getExtValue() < 1 || value->getExtValue() > 1024) continue;
      dim = tid->dim;
      return value->getExtValue();
    }
  }
  return std::nullopt;
}

// The form of a kernel whose index multiplies blockIdx by a constant block
// extent, `blockIdx.x * 256 + threadIdx.x` or `blockIdx.y * TILE +
// threadIdx.y`: that index written with blockDim, under the precondition
// that the launch's block has that extent; "no-form" without one.
Expected<ItemsForm> fixed_block_form(const KernelAst &k, const CompoundStmt *body) {
  std::map<int, long> extent; // per dimension
  Edits e;
  std::string why;
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s || !why.empty()) return;
    int dim = 0;
    const auto *x = dyn_cast<Expr>(s);
    if (auto c = x ? fixed_block_index(x, k.context(), dim) : std::nullopt) {
      size_t b = 0, end = 0;
      if (extent.count(dim) && extent[dim] != *c) {
        why = "the kernel multiplies blockIdx by two different block extents";
      } else if (!k.file_span(x->getSourceRange(), b, end)) {
        why = "the block index is written in a macro";
      } else {
        extent[dim] = *c;
        std::string d(1, "xyz"[dim]);
        e.replace(b, end, "(blockIdx." + d + " * blockDim." + d + " + threadIdx." + d + ")");
      }
      return;
    }
    for (const Stmt *c : s->children())
      visit(c);
  };
  visit(body);
  if (!why.empty()) return not_applicable(why);
  if (extent.empty())
    return make_error(
        "the kernel has no grid-stride or block-stride loop, flattened 2-D index or constant block extent", "no-form");
  auto text = e.apply(k.source());
  if (!text) return text.error();
  ItemsForm out;
  out.source = *text;
  for (auto [dim, c] : extent)
    out.launch.preconditions.push_back(std::string("block.") + "xyz"[dim] + " == " + std::to_string(c));
  return out;
}

// The form of a kernel indexing a flattened 2-D grid; "no-form" without one.
Expected<ItemsForm> flat_grid_form(const KernelAst &k, const CompoundStmt *body) {
  std::vector<const Expr *> flats;
  std::set<const Stmt *> inside;
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s) return;
    if (const auto *e = dyn_cast<Expr>(s); e && is_flat_index(e)) {
      flats.push_back(e);
      walk(s, [&](const Stmt *x) { inside.insert(x); });
      return;
    }
    for (const Stmt *c : s->children())
      visit(c);
  };
  visit(body);
  if (flats.empty()) {
    auto fixed = fixed_block_form(k, body);
    if (fixed || fixed.error().code != "no-form") return fixed;
    auto split = split_index_form(k, body);
    if (split || split.error().code != "no-form") return split;
    return make_error("the kernel has no grid-stride or block-stride loop, flattened 2-D index, constant block extent "
                      "or index split into a row and a column",
                      "no-form");
  }
  for (const Builtin &b : index_uses(body).other)
    if (!inside.count(b.expr) && (b.var == Builtin::BlockIdx || b.var == Builtin::GridDim))
      return not_applicable("the kernel reads blockIdx or gridDim outside its flattened 2-D index");
  Edits e;
  for (const Expr *f : flats) {
    size_t b = 0, x = 0;
    if (!k.span(f->getSourceRange(), b, x)) return not_applicable("the flattened 2-D index is written in a macro");
    e.replace(b, x, "(blockIdx.x * blockDim.x + threadIdx.x)");
  }
  auto text = e.apply(k.source());
  if (!text) return text.error();
  ItemsForm out;
  out.source = *text;
  out.launch.grid = {"grid.x * grid.y", "1", "1"};
  out.launch.preconditions = {"grid.z == 1"};
  return out;
}

// Why a statement of `body` before `loop` keeps the form from applying: it
// stores to memory (each item would do it again); "" when none does.
std::string stores_before(const CompoundStmt *body, const Stmt *loop, const std::string &kind = "grid-stride loop") {
  for (const Stmt *s : body->body()) {
    if (s == loop) break;
    if (writes_memory(s)) return "a statement before the " + kind + " stores to memory";
  }
  return "";
}

// Why a for loop's variable `v` cannot move to the kernel body's scope (a
// parameter or a declaration there has its name); "" when it can.
std::string clash(const KernelAst &k, const CompoundStmt *body, const VarDecl *v) {
  for (const ParmVarDecl *p : k.kernel()->parameters())
    if (p->getName() == v->getName()) return "the loop variable's name is a parameter's";
  for (const Stmt *s : body->body())
    if (const auto *d = dyn_cast<DeclStmt>(s))
      for (const Decl *decl : d->decls())
        if (const auto *nd = dyn_cast<NamedDecl>(decl); nd && nd != v && nd->getName() == v->getName())
          return "the loop variable's name is declared again in the kernel's body";
  return "";
}

// The for loop `l`'s initialization as a statement of the form, `T i =
// start; `. A local `index` holding the global index and read only there is
// replaced by its value, and `e` removes its declaration.
Expected<std::string> init_text(const KernelAst &k, const CompoundStmt *body, const Loop &l, Edits &e) {
  const auto *f = cast<ForStmt>(l.loop);
  if (!f->getInit()) return std::string();
  const std::string &src = k.source();
  size_t ib = 0, ix = 0;
  if (!k.span(f->getInit()->getSourceRange(), ib, ix))
    return not_applicable("the grid-stride loop is written in a macro");
  std::string text = src.substr(ib, ix - ib);
  const VarDecl *u = local_named(l.start);
  const auto *decl = u ? index_declaration(body, u) : nullptr;
  size_t sb = 0, sx = 0, ub = 0, ux = 0;
  if (decl && references(body, u) == 1 && k.span(l.start->getSourceRange(), sb, sx) &&
      k.span(u->getInit()->getSourceRange(), ub, ux) && sb >= ib && sx <= ix) {
    text.replace(sb - ib, sx - sb, src.substr(ub, ux - ub));
    e.replace(statement_begin(k, decl), statement_end(k, decl), "");
  }
  if (text.empty() || text.back() != ';') text += ';';
  return text + ' ';
}

// The text of `l`'s condition, whole macro invocations in it included (`i <
// N` with N a macro). Error when it is written in a macro.
Expected<std::string> condition_text(const KernelAst &k, const Loop &l) {
  const Expr *cond = isa<ForStmt>(l.loop) ? cast<ForStmt>(l.loop)->getCond() : cast<WhileStmt>(l.loop)->getCond();
  size_t cb = 0, cx = 0;
  if (!k.file_span(cond->getSourceRange(), cb, cx)) return not_applicable("the grid-stride loop is written in a macro");
  return k.source().substr(cb, cx - cb);
}

// Edits removing the declaration of a local holding `l`'s stride that
// nothing but the step reads.
void drop_stride_locals(const KernelAst &k, const CompoundStmt *body, const Loop &l, Edits &e) {
  const Stmt *inc = isa<ForStmt>(l.loop) ? cast<ForStmt>(l.loop)->getInc() : l.step;
  walk(inc, [&](const Stmt *x) {
    const auto *ref = dyn_cast<DeclRefExpr>(x);
    const VarDecl *s = ref ? local_named(ref) : nullptr;
    if (!s || s == l.item || references(body, s) != 1) return;
    for (const Stmt *st : body->body())
      if (const auto *d = dyn_cast<DeclStmt>(st); d && d->isSingleDecl() && d->getSingleDecl() == s) {
        size_t db = statement_begin(k, d), dx = statement_end(k, d);
        if (db != std::string::npos && dx != std::string::npos) e.replace(db, dx, "");
      }
  });
}

// The positions of a loop's statement, of its body's start and of its
// body's end; error when a macro hides one.
struct Spans {
  size_t loop = 0, body = 0, end = 0;
};
Expected<Spans> spans_of(const KernelAst &k, const Loop &l) {
  Spans s{statement_begin(k, l.loop), k.offset(l.body->getBeginLoc()), statement_end(k, l.body)};
  if (s.loop == std::string::npos || s.body == std::string::npos || s.end == std::string::npos)
    return not_applicable("the grid-stride loop is written in a macro");
  return s;
}

// The form of two nested grid-stride loops: both headers go, and
//   <outer start> <inner start> if ((outer cond) && (inner cond)) BODY
// runs each item (i, j) on its own thread of a 2-D grid covering the bounds.
Expected<ItemsForm> nest_form(const KernelAst &k, const CompoundStmt *body, const Nest &n) {
  const Loop &o = n.outer, &in = n.inner;
  if (assigned_in_items(o, o.item) || assigned_in_items(in, in.item) || assigned_in_items(in, o.item))
    return not_applicable("the grid-stride loops assign their item variables");
  Effects fx = effects_in(o.body);
  if (fx.barrier || fx.warp_ops)
    return not_applicable("the grid-stride loop synchronizes threads or uses warp-level operations");
  std::string why;
  exits(in.body, false, false, [&](const Stmt *x) {
    if (!isa<ContinueStmt>(x))
      why = "a break, goto or return leaves the grid-stride loop";
    else if (isa<WhileStmt>(in.loop))
      why = "a continue skips the grid-stride loop's increment";
  });
  const Loop &lx = o.dim == 0 ? o : in, &ly = o.dim == 0 ? in : o;
  auto distinct = [&](const Expr *index) {
    return row_major_in(index, lx.item, ly.item, ly.bound) || row_major_in(index, ly.item, lx.item, lx.bound);
  };
  if (why.empty()) why = dependence(o.body, {o.item, in.item}, distinct);
  if (why.empty()) why = stores_before(body, o.loop);
  for (const Loop *l : {&o, &in})
    if (why.empty() && isa<ForStmt>(l->loop) && cast<ForStmt>(l->loop)->getInit()) why = clash(k, body, l->item);
  if (why.empty() && o.item->getName() == in.item->getName()) why = "the two loop variables have the same name";
  if (!why.empty()) return not_applicable(why);
  auto nx = as_mapping_expr(lx.bound), ny = as_mapping_expr(ly.bound);
  if (!nx || !ny) return not_applicable("a grid-stride loop's bound is not an expression of integer parameters");
  auto so = spans_of(k, o), si = spans_of(k, in);
  if (!so) return so.error();
  if (!si) return si.error();
  auto co = condition_text(k, o), ci = condition_text(k, in);
  if (!co) return co.error();
  if (!ci) return ci.error();
  Edits e;
  // The inner loop's start, set once before the guard.
  std::string start;
  if (isa<ForStmt>(in.loop)) {
    auto t = init_text(k, body, in, e);
    if (!t) return t.error();
    start = *t;
  } else {
    size_t rb = statement_begin(k, in.restart), rx = statement_end(k, in.restart);
    size_t sb = statement_begin(k, in.step), sx = statement_end(k, in.step);
    if (rb == std::string::npos || rx == std::string::npos || sb == std::string::npos || sx == std::string::npos)
      return not_applicable("the grid-stride loop is written in a macro");
    bool set_before = false; // the variable's value when the outer loop starts
    for (const Stmt *s : body->body())
      if (s != o.loop && assigns(s, in.item)) set_before = true;
    if (set_before || !in.item->getInit() || !is_start(in.item->getInit(), in.dim))
      start = k.source().substr(rb, rx - rb) + " ";
    e.replace(rb, rx, "");
    e.replace(sb, sx, "");
  }
  std::string guard = "if ((" + *co + ") && (" + *ci + ")) ";
  if (isa<ForStmt>(o.loop)) {
    auto t = init_text(k, body, o, e);
    if (!t) return t.error();
    bool braced = isa<CompoundStmt>(o.body);
    e.replace(so->loop, so->body, *t + start + guard + (braced ? "" : "{ "));
    if (!braced) e.insert(so->end, " }");
  } else {
    size_t sb = statement_begin(k, o.step), sx = statement_end(k, o.step);
    if (k.source().compare(so->loop, 5, "while") != 0 || sb == std::string::npos || sx == std::string::npos)
      return not_applicable("the grid-stride loop is written in a macro");
    e.replace(so->loop, so->body, start + guard);
    e.replace(sb, sx, "");
  }
  e.replace(si->loop, si->body, "");
  if (Status ok = continues_return(k, in.body, e); !ok) return ok.error();
  drop_stride_locals(k, body, o, e);
  drop_stride_locals(k, body, in, e);
  auto text = e.apply(k.source());
  if (!text) return text.error();
  ItemsForm out;
  out.source = *text;
  out.launch.grid = {"ceil_div(" + *nx + ", block.x)", "ceil_div(" + *ny + ", block.y)", "1"};
  out.launch.preconditions = {"grid.z == 1", "block.z == 1"};
  return out;
}

// The form `e` makes of the definition `src`, one item per thread of a 1-D
// launch: ceil(n / block.x) blocks in x and `grid_y` in y, the original's
// grid and block 1-D.
Expected<ItemsForm> row_form(const std::string &src, const Edits &e, const std::string &n, const std::string &grid_y) {
  auto text = e.apply(src);
  if (!text) return text.error();
  ItemsForm out;
  out.source = *text;
  out.launch.grid = {"ceil_div(" + n + ", block.x)", grid_y, "1"};
  out.launch.preconditions = {"grid.y == 1", "block.y == 1", "grid.z == 1", "block.z == 1"};
  return out;
}

// Whether `e` is builtin `var` of x, through parentheses and casts.
bool is_x(const Expr *e, Builtin::Var var) {
  auto b = as_builtin(strip(e));
  return b && b->var == var && b->dim == 0;
}

// The body's last statement as a block-stride loop, `for (T c = threadIdx.x;
// c < N; c += blockDim.x) BODY` (or `c = c + blockDim.x`), or nullopt.
std::optional<Loop> find_block_stride_loop(const CompoundStmt *body) {
  auto list = statements_but(body, nullptr);
  const auto *f = list.empty() ? nullptr : dyn_cast<ForStmt>(list.back());
  const auto *d = f ? dyn_cast_or_null<DeclStmt>(f->getInit()) : nullptr;
  const auto *v = d && d->isSingleDecl() ? dyn_cast<VarDecl>(d->getSingleDecl()) : nullptr;
  if (!v || !v->getInit() || !is_x(v->getInit(), Builtin::ThreadIdx) ||
      !steps_by(f->getInc(), v, [](const Expr *s) { return is_x(s, Builtin::BlockDim); }))
    return std::nullopt;
  Loop l;
  l.loop = f;
  l.item = v;
  l.start = v->getInit();
  l.bound = less_than_bound(f->getCond(), v);
  l.body = f->getBody();
  l.step = f->getInc();
  return l.bound ? std::optional<Loop>(l) : std::nullopt;
}

// The form of a kernel whose block shares its work by a block-stride loop
// (find_block_stride_loop), each block a problem of its own (a row at
// blockIdx.x): `c = blockIdx.x * blockDim.x + threadIdx.x; if (c < N) BODY`
// with the block's problem at blockIdx.y, launched with ceil(N / block.x) x
// grid.x blocks, computes the same when the loop's items are independent
// (as for a grid-stride loop), nothing before the loop stores to memory, N
// is an expression of integer parameters, threadIdx.x and blockDim.x are
// read only in the loop's header (no global index either), and the grid and
// block are 1-D. "no-form" without such a loop.
Expected<ItemsForm> block_stride_form(const KernelAst &k, const CompoundStmt *body) {
  auto loop = find_block_stride_loop(body);
  if (!loop) return make_error("the kernel has no block-stride loop", "no-form");
  const auto *f = cast<ForStmt>(loop->loop);
  const VarDecl *v = loop->item;
  if (assigned_in_items(*loop, v)) return not_applicable("the block-stride loop assigns its item variable");
  Effects fx = effects_of(k.kernel());
  if (fx.barrier || fx.warp_ops || fx.shared_memory)
    return not_applicable("the kernel synchronizes threads, uses warp-level operations or shared memory");
  auto sp = spans_of(k, *loop);
  if (!sp) return sp.error();
  IndexUses uses = index_uses(body);
  if (!uses.global.empty()) return not_applicable("the kernel has a global index besides its block-stride loop");
  for (const Builtin &b : uses.other) {
    size_t at = k.offset(b.expr->getBeginLoc());
    bool header = at != std::string::npos && at >= sp->loop && at < sp->body;
    if (b.dim != 0 || ((b.var == Builtin::ThreadIdx || b.var == Builtin::BlockDim) && !header))
      return not_applicable("the kernel reads threadIdx or blockDim outside the block-stride loop's header, or a "
                            "builtin of y or z");
  }
  auto distinct = [&](const Expr *index) { return injective_in(index, v); };
  std::string why = dependence(loop->body, {v}, distinct, "block-stride loop");
  if (why.empty()) why = stores_before(body, f, "block-stride loop");
  if (why.empty()) why = clash(k, body, v);
  if (!why.empty()) return not_applicable(why);
  auto n = as_mapping_expr(loop->bound);
  if (!n) return not_applicable("the block-stride loop's bound is not an expression of integer parameters");
  auto cond = condition_text(k, *loop);
  if (!cond) return cond.error();
  const std::string &src = k.source();
  size_t ib = 0, ix = 0, sb = 0, sx = 0;
  if (!k.span(f->getInit()->getSourceRange(), ib, ix) || !k.span(loop->start->getSourceRange(), sb, sx))
    return not_applicable("the block-stride loop is written in a macro");
  Edits e;
  std::string init = src.substr(ib, sb - ib) + "(blockIdx.x * blockDim.x + threadIdx.x)" + src.substr(sx, ix - sx);
  bool braced = isa<CompoundStmt>(loop->body);
  e.replace(sp->loop, sp->body, init + " if (" + *cond + ") " + (braced ? "" : "{ "));
  if (!braced) e.insert(sp->end, " }");
  if (Status ok = continues_return(k, loop->body, e); !ok) return ok.error();
  for (const Builtin &b : uses.other) { // the block's problem moves to y
    if (b.var != Builtin::BlockIdx && b.var != Builtin::GridDim) continue;
    size_t bb = 0, bx = 0;
    if (!k.span(b.expr->getSourceRange(), bb, bx)) return not_applicable("blockIdx.x is written in a macro");
    e.replace(bb, bx, b.var == Builtin::BlockIdx ? "blockIdx.y" : "gridDim.y");
  }
  return row_form(src, e, *n, "grid.x");
}

} // namespace

Expected<ItemsForm> items_form(const KernelAst &k) {
  const auto *body = dyn_cast_or_null<CompoundStmt>(k.kernel()->getBody());
  if (!body) return make_error("the kernel has no body", "no-form");
  if (auto nest = find_nest(body)) return nest_form(k, body, *nest);
  auto loop = find_loop(body);
  if (!loop) {
    auto strided = block_stride_form(k, body);
    return strided || strided.error().code != "no-form" ? strided : flat_grid_form(k, body);
  }
  const VarDecl *v = loop->item;
  const auto *f = dyn_cast<ForStmt>(loop->loop);
  if (assigned_in_items(*loop, v)) return not_applicable("the grid-stride loop assigns its item variable");
  Effects fx = effects_in(loop->body);
  if (fx.barrier || fx.warp_ops) // every thread ran as many passes: one item each may diverge
    return not_applicable("the grid-stride loop synchronizes threads or uses warp-level operations");
  auto distinct = [&](const Expr *index) { return injective_in(index, v) || split_injective(index, v, loop->bound); };
  if (std::string why = dependence(loop->body, {v}, distinct); !why.empty()) return not_applicable(why);
  auto n = as_mapping_expr(loop->bound);
  if (!n) return not_applicable("the grid-stride loop's bound is not an expression of integer parameters");
  if (std::string why = stores_before(body, loop->loop); !why.empty()) return not_applicable(why);
  // A for loop's variable moves to the body's scope: no name may clash there.
  if (f && f->getInit())
    if (std::string why = clash(k, body, v); !why.empty()) return not_applicable(why);
  const std::string &src = k.source();
  size_t lb = statement_begin(k, loop->loop), bb = k.offset(loop->body->getBeginLoc());
  size_t be = statement_end(k, loop->body);
  Edits e;
  if (f && lb == std::string::npos && bb != std::string::npos && be != std::string::npos) {
    // The header from a macro (Caffe's CUDA_KERNEL_LOOP(i, n)), the body written out.
    auto header = macro_header(k, f, *loop);
    if (!header) return header.error();
    e.replace(header->first, bb, header->second + (isa<CompoundStmt>(loop->body) ? "" : "{ "));
    if (!isa<CompoundStmt>(loop->body)) e.insert(be, " }");
    if (Status ok = continues_return(k, loop->body, e); !ok) return ok.error();
  } else if (lb == std::string::npos || bb == std::string::npos || be == std::string::npos) {
    return not_applicable("the grid-stride loop is written in a macro");
  } else if (f) {
    auto init = init_text(k, body, *loop, e);
    auto cond = condition_text(k, *loop);
    if (!init) return init.error();
    if (!cond) return cond.error();
    bool braced = isa<CompoundStmt>(loop->body);
    e.replace(lb, bb, *init + "if (" + *cond + ") " + (braced ? "" : "{ "));
    if (!braced) e.insert(be, " }");
    if (Status ok = continues_return(k, loop->body, e); !ok) return ok.error();
  } else {
    bool continues = false;
    exits(loop->body, false, false, [&](const Stmt *) { continues = true; });
    if (continues) return not_applicable("a continue skips the grid-stride loop's increment");
    size_t sb = statement_begin(k, loop->step), sx = statement_end(k, loop->step);
    if (sb == std::string::npos || sx == std::string::npos)
      return not_applicable("the grid-stride loop is written in a macro");
    if (src.compare(lb, 5, "while") != 0) return not_applicable("the grid-stride loop is written in a macro");
    e.replace(lb, lb + 5, "if");
    e.replace(sb, sx, "");
  }
  drop_stride_locals(k, body, *loop, e);
  return row_form(src, e, *n, "1");
}

} // namespace kbcc::transform
