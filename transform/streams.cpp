#include "transform/streams.h"

#include "transform/analysis.h"
#include "transform/transform.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace kbcc::transform {
using namespace clang;

bool Stream::loads() const {
  return !accesses.empty() &&
         std::none_of(accesses.begin(), accesses.end(), [](const StreamAccess &a) { return a.store; });
}

namespace {

// Adds `b` to `bounds` unless it is there already.
void add_bound(std::vector<const Expr *> &bounds, const Expr *b) {
  if (std::find(bounds.begin(), bounds.end(), b) == bounds.end()) bounds.push_back(b);
}

// Whether `if` is a bound guard on `i`: every term of its condition is
// `i < B` (an enclosing if), or `i >= B` (an early return).
bool bound_if(const IfStmt *s, const VarDecl *i, std::vector<const Expr *> *bounds) {
  if (!s || s->getElse() || s->hasInitStorage() || s->hasVarStorage()) return false;
  bool early = only_returns(s->getThen());
  std::vector<const Expr *> parts, found;
  split_terms(s->getCond(), early ? BO_LOr : BO_LAnd, parts);
  for (const Expr *t : parts) {
    const Expr *b = early ? at_least_bound(t, i) : less_than_bound(t, i);
    if (!b) return false;
    found.push_back(b);
  }
  for (const Expr *b : found)
    if (bounds) add_bound(*bounds, b);
  return true;
}

// Walks the body remembering, for each node, whether it runs for every
// in-range item and whether it is inside a loop.
class Walker {
public:
  Walker(const VarDecl *index, std::vector<const Expr *> &bounds) : index_(index), bounds_(bounds) {}

  void body(const CompoundStmt *b) { block(b, true, false); }

  struct Seen {
    bool always = false, in_loop = false;
    const BinaryOperator *store = nullptr;
  };
  std::map<const ArraySubscriptExpr *, Seen> seen;

private:
  const VarDecl *index_;
  std::vector<const Expr *> &bounds_;

  // Statements of a block: after a statement that may leave it (a return
  // other than a bound guard's, a jump), the rest is conditional.
  void block(const CompoundStmt *b, bool always, bool loop) {
    for (const Stmt *s : b->body()) {
      const auto *i = dyn_cast<IfStmt>(s);
      if (i && only_returns(i->getThen()) && bound_if(i, index_, always && !loop ? &bounds_ : nullptr)) {
        stmt(i->getCond(), always, loop);
        continue;
      }
      stmt(s, always, loop);
      if (has_return(s) || has_break_or_goto(s) || isa<ContinueStmt>(s)) always = false;
    }
  }

  void stmt(const Stmt *s, bool always, bool loop) {
    if (!s) return;
    if (const auto *c = dyn_cast<CompoundStmt>(s)) return block(c, always, loop);
    if (const auto *i = dyn_cast<IfStmt>(s)) {
      stmt(i->getCond(), always, loop);
      bool guard = bound_if(i, index_, always && !loop ? &bounds_ : nullptr);
      stmt(i->getThen(), always && guard, loop);
      stmt(i->getElse(), false, loop);
      return;
    }
    if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s) || isa<SwitchStmt>(s)) {
      for (const Stmt *c : s->children())
        stmt(c, false, true);
      return;
    }
    if (const auto *c = dyn_cast<ConditionalOperator>(s)) {
      stmt(c->getCond(), always, loop);
      stmt(c->getTrueExpr(), false, loop);
      stmt(c->getFalseExpr(), false, loop);
      return;
    }
    if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isLogicalOp()) {
      // In `i < B && rest` (`i >= B || rest`), rest runs on every item that
      // passes the bound, which then bounds the items as a guard does.
      std::vector<const Expr *> terms;
      split_terms(b, b->getOpcode(), terms);
      bool guarded = always;
      for (const Expr *t : terms) {
        const Expr *bound = b->getOpcode() == BO_LAnd ? less_than_bound(t, index_) : at_least_bound(t, index_);
        stmt(t, guarded, loop);
        if (guarded && bound && !loop) {
          add_bound(bounds_, bound);
          continue;
        }
        guarded = false;
      }
      return;
    }
    if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp())
      if (const auto *a = dyn_cast<ArraySubscriptExpr>(b->getLHS()->IgnoreParens())) {
        seen[a] = {always, loop, b};
        stmt(a->getIdx(), always, loop);
        stmt(b->getRHS(), always, loop);
        return;
      }
    if (const auto *c = dyn_cast<ImplicitCastExpr>(s); c && c->getCastKind() == CK_LValueToRValue)
      if (const auto *a = dyn_cast<ArraySubscriptExpr>(c->getSubExpr()->IgnoreParens())) {
        seen[a] = {always, loop, nullptr};
        stmt(a->getIdx(), always, loop);
        return;
      }
    for (const Stmt *c : s->children())
      stmt(c, always, loop);
  }
};

// Whether every in-range item that runs `s` evaluates one of `accesses`
// there: one of them, a block with a statement that does before any that
// may leave it (a bound guard's return aside), a branch whose condition
// does or whose two sides both do (a bound guard's then alone), a logical
// operator's first term or one after bound checks; loops, switches and
// jumps count as not.
bool must_access(const Stmt *s, const std::set<const Expr *> &accesses, const VarDecl *i) {
  if (!s) return false;
  if (const auto *e = dyn_cast<Expr>(s); e && accesses.count(e)) return true;
  if (const auto *c = dyn_cast<CompoundStmt>(s)) {
    for (const Stmt *x : c->body()) {
      const auto *guard = dyn_cast<IfStmt>(x);
      if (guard && only_returns(guard->getThen()) && bound_if(guard, i, nullptr)) {
        if (must_access(guard->getCond(), accesses, i)) return true;
        continue;
      }
      if (must_access(x, accesses, i)) return true;
      if (has_return(x) || has_break_or_goto(x) || isa<ContinueStmt>(x)) return false;
    }
    return false;
  }
  if (const auto *b = dyn_cast<IfStmt>(s)) {
    if (must_access(b->getCond(), accesses, i)) return true;
    if (bound_if(b, i, nullptr)) return must_access(b->getThen(), accesses, i);
    return b->getElse() && must_access(b->getThen(), accesses, i) && must_access(b->getElse(), accesses, i);
  }
  if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s) || isa<SwitchStmt>(s) ||
      isa<GotoStmt>(s))
    return false;
  if (const auto *c = dyn_cast<ConditionalOperator>(s))
    return must_access(c->getCond(), accesses, i) ||
           (must_access(c->getTrueExpr(), accesses, i) && must_access(c->getFalseExpr(), accesses, i));
  if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isLogicalOp()) {
    std::vector<const Expr *> terms;
    split_terms(b, b->getOpcode(), terms);
    for (const Expr *t : terms) {
      if (must_access(t, accesses, i)) return true;
      if (!(b->getOpcode() == BO_LAnd ? less_than_bound(t, i) : at_least_bound(t, i))) return false;
    }
    return false;
  }
  return std::any_of(s->child_begin(), s->child_end(), [&](const Stmt *c) { return must_access(c, accesses, i); });
}

bool is_index(const Expr *e, const VarDecl *i) {
  const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  return ref && ref->getDecl() == i;
}

// The field of subscript `e`: {1, 0} for i, {R, c} for R * i + c (either
// operand order, c optional, constants R in [2, 64] and c in [0, R), i
// through casts to integer types at least as wide as its own, which keep its
// value); none for any other subscript.
struct Field {
  unsigned record = 1, field = 0;
};
std::optional<Field> field_of(const Expr *e, const VarDecl *i, const ASTContext &ctx) {
  if (is_index(e, i)) return Field{};
  e = e->IgnoreParenImpCasts();
  long long c = 0;
  if (const auto *b = dyn_cast<BinaryOperator>(e); b && b->getOpcode() == BO_Add) {
    const Expr *scaled = b->getLHS();
    auto k = constant_value(b->getRHS(), ctx);
    if (!k) {
      scaled = b->getRHS();
      k = constant_value(b->getLHS(), ctx);
    }
    if (!k) return std::nullopt;
    c = *k;
    e = scaled->IgnoreParenImpCasts();
  }
  const auto *m = dyn_cast<BinaryOperator>(e);
  if (!m || m->getOpcode() != BO_Mul) return std::nullopt;
  const Expr *index = m->getLHS();
  auto r = constant_value(m->getRHS(), ctx);
  if (!r) {
    index = m->getRHS();
    r = constant_value(m->getLHS(), ctx);
  }
  if (!r || *r < 2 || *r > 64 || c < 0 || c >= *r ||
      !is_index(strip_int_casts(index, ctx, ctx.getTypeSize(i->getType())), i))
    return std::nullopt;
  return Field{static_cast<unsigned>(*r), static_cast<unsigned>(c)};
}

// Whether the store statement's value is discarded (`p[i] = v;` stands alone).
bool whole_statement(const CompoundStmt *body, const BinaryOperator *b) {
  bool found = false;
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s || found) return;
    if (const auto *c = dyn_cast<CompoundStmt>(s))
      for (const Stmt *x : c->body())
        found = found || x == b;
    if (const auto *i = dyn_cast<IfStmt>(s)) found = found || i->getThen() == b || i->getElse() == b;
    for (const Stmt *c : s->children())
      visit(c);
  };
  visit(body);
  return found;
}

// The memory writes under `body` (assignments, increments, calls that write).
Status collect_writes(const KernelAst &k, const Stmt *body, std::vector<StreamPlan::Write> &out) {
  Status status = Status::ok();
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s || !status) return;
    bool write = false;
    StreamPlan::Write w;
    if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp()) {
      write = writes_memory(b);
      if (write) {
        size_t e = 0;
        if (!k.span(b->getRHS()->getSourceRange(), w.value_begin, e))
          status = not_applicable("a store is written in a macro");
        w.value_end = e;
      }
    } else if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp()) {
      write = writes_memory(u);
    } else if (isa<CallExpr>(s)) {
      write = writes_memory(s);
    }
    if (write) {
      w.at = k.offset(s->getBeginLoc());
      if (w.at == std::string::npos) status = not_applicable("a store is written in a macro");
      out.push_back(w);
    }
    for (const Stmt *c : s->children())
      visit(c);
  };
  visit(body);
  return status;
}

} // namespace

Expected<StreamPlan> stream_plan(const KernelAst &k) {
  auto s = index_space(k, /*allow_2d=*/false, /*allow_atomics=*/true);
  if (!s) return s.error();
  auto vars = index_variables(s->body, 0);
  if (vars.size() != 1 || s->occurrences.size() != 1)
    return not_applicable("the global index is not held by exactly one variable");
  StreamPlan p;
  p.space = *s;
  p.index = vars[0];
  Walker w(p.index, p.bounds);
  w.body(s->body);
  if (p.bounds.empty()) return not_applicable("no bound guard on the global index (if (i < n) ...)");
  if (auto st = collect_writes(k, s->body, p.writes); !st) return st.error();
  for (const ParmVarDecl *param : k.kernel()->parameters()) {
    QualType t = param->getType();
    if (!t->isPointerType()) continue;
    QualType e = t->getPointeeType();
    if (!e->isArithmeticType() || e->isBooleanType()) continue;
    Stream st;
    st.param = param;
    st.element_bytes = static_cast<unsigned>(k.context().getTypeSizeInChars(e).getQuantity());
    bool one_record = true;
    for (const auto &[a, seen] : w.seen) {
      const auto *base = dyn_cast<DeclRefExpr>(a->getBase()->IgnoreParenImpCasts());
      if (!base || base->getDecl() != param) continue;
      auto f = field_of(a->getIdx(), p.index, k.context());
      if (!f) continue;
      if (seen.store && !whole_statement(s->body, seen.store)) continue;
      if (!st.accesses.empty() && f->record != st.record) one_record = false;
      st.record = f->record;
      st.accesses.push_back({a, seen.store, seen.always, seen.in_loop, f->field});
    }
    if (st.accesses.empty() || !one_record || references(s->body, param) != static_cast<int>(st.accesses.size()))
      continue;
    std::sort(st.accesses.begin(), st.accesses.end(), [&](const StreamAccess &x, const StreamAccess &y) {
      return k.offset(x.expr->getBeginLoc()) < k.offset(y.expr->getBeginLoc());
    });
    // Each field must be accessed (stored) by every item.
    st.every_item = st.stored_every_item = true;
    for (unsigned c = 0; c < st.record; ++c) {
      std::set<const Expr *> all, stores;
      for (const StreamAccess &a : st.accesses)
        if (a.field == c) {
          all.insert(a.expr);
          if (a.store) stores.insert(a.expr);
        }
      st.all_fields = st.all_fields && !all.empty();
      st.every_item = st.every_item && must_access(s->body, all, p.index);
      st.stored_every_item = st.stored_every_item && must_access(s->body, stores, p.index);
    }
    p.streams.push_back(std::move(st));
  }
  return p;
}

bool load_precedes_stores(const KernelAst &k, const StreamPlan &p, const StreamAccess &l,
                          const std::set<size_t> &ignored) {
  size_t at = k.offset(l.expr->getBeginLoc());
  if (at == std::string::npos) return false;
  for (const StreamPlan::Write &w : p.writes)
    if (!ignored.count(w.at) && at >= w.at && !(at >= w.value_begin && at < w.value_end)) return false;
  return true;
}

bool first_write(const KernelAst &k, const StreamPlan &p, const StreamAccess &store, const std::set<size_t> &ignored) {
  size_t at = k.offset(store.store->getBeginLoc()), end = 0, b = 0;
  if (at == std::string::npos || !k.span(store.store->getSourceRange(), b, end)) return false;
  return std::all_of(p.writes.begin(), p.writes.end(),
                     [&](const StreamPlan::Write &w) { return w.at == at || w.at >= end || ignored.count(w.at); });
}

} // namespace kbcc::transform
