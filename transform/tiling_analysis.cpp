// The analysis shared by smem_tiling and register_blocking (tiling_analysis.h).
#include "transform/tiling_analysis.h"

#include "transform/transform.h"

#include <functional>

namespace kbcc::transform {
using namespace clang;

bool depends_on(const Expr *e, const VarDecl *var) {
  std::function<bool(const Stmt *, int)> visit = [&](const Stmt *s, int depth) {
    if (!s || depth > 16) return false;
    if (const auto *ref = dyn_cast<DeclRefExpr>(s)) {
      if (ref->getDecl() == var) return true;
      if (const auto *v = dyn_cast<VarDecl>(ref->getDecl()); v && v->hasLocalStorage() && v->getInit())
        return visit(v->getInit(), depth + 1);
    }
    for (const Stmt *c : s->children())
      if (visit(c, depth)) return true;
    return false;
  };
  return visit(e, 0);
}

std::string working(const KernelAst &k, const TilingPlan &p, const std::vector<const Expr *> &terms) {
  std::string out = "true";
  for (const Expr *t : terms)
    out += (p.guard_keeps ? " && (" : " && !(") + k.text(t->getSourceRange()) + ")";
  return out;
}

bool guard_span(const KernelAst &k, const TilingPlan &p, size_t &b, size_t &x) {
  if (!p.guard || !k.span(p.guard->getSourceRange(), b, x)) return false;
  x = p.guard_keeps ? k.offset(p.scope->getLBracLoc()) : past_semicolon(k.source(), x);
  return x != std::string::npos;
}

namespace {

// Classifies the loads of the loop body; false when one depends on row and col.
bool classify_loads(TilingPlan &p) {
  std::function<bool(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s) return true;
    if (const auto *c = dyn_cast<ImplicitCastExpr>(s); c && c->getCastKind() == CK_LValueToRValue) {
      const Expr *lv = c->getSubExpr()->IgnoreParenImpCasts();
      if (isa<ArraySubscriptExpr>(lv) || (isa<UnaryOperator>(lv) && cast<UnaryOperator>(lv)->getOpcode() == UO_Deref)) {
        bool r = depends_on(lv, p.row), q = depends_on(lv, p.col), k = depends_on(lv, p.loop.var);
        if (r && q) return false;
        if (k && r) p.loads.push_back({lv, 'A'});
        if (k && q) p.loads.push_back({lv, 'B'});
        return true;
      }
    }
    for (const Stmt *child : s->children())
      if (!visit(child)) return false;
    return true;
  };
  return visit(p.loop.loop->getBody());
}

// Whether the loop's trip count is the same for every thread of a block (the
// tiles are filled under a barrier): its bounds read no memory and depend on
// neither output index.
bool uniform_bounds(const TilingPlan &p) {
  for (const Expr *e : {p.loop.init, p.loop.bound})
    if (reads_memory(e) || depends_on(e, p.row) || depends_on(e, p.col)) return false;
  return true;
}

// The accumulator `st` declares alone when its initializer reads memory but
// writes none (`float acc = bias[col];`); null otherwise.
const VarDecl *loaded_accumulator(const TilingPlan &p, const Stmt *st) {
  const auto *d = dyn_cast<DeclStmt>(st);
  const auto *v = d && d->isSingleDecl() ? dyn_cast<VarDecl>(d->getSingleDecl()) : nullptr;
  if (!v || !v->getInit() || v->getInitStyle() != VarDecl::CInit || writes_memory(v->getInit())) return nullptr;
  for (const Accumulation &a : p.accs)
    if (a.var == v) return v;
  return nullptr;
}

} // namespace

Expected<TilingPlan> analyze_tiling(const KernelAst &k) {
  auto idx = index_2d(k, /*allow_batch=*/true);
  if (!idx) return idx.error();
  TilingPlan p;
  p.space = idx->space;
  p.col = idx->x, p.row = idx->y;
  bool seen_loop = false;
  std::vector<std::pair<const Stmt *, bool>> touching; // statements before the loop that touch memory; after the guard
  // Splits the guard's terms (`join`: || for a return guard, && for a block) by what they depend on.
  auto take_guard = [&](const IfStmt *i, BinaryOperatorKind join) -> Status {
    p.guard = i;
    std::vector<const Expr *> terms;
    split_terms(i->getCond(), join, terms);
    for (const Expr *t : terms) {
      bool r = refers_to(t, p.row), c = refers_to(t, p.col);
      if (r && c) return not_applicable("a guard term depends on both row and column");
      (r ? p.row_terms : c ? p.col_terms : p.uniform_terms).push_back(t);
    }
    return Status::ok();
  };
  std::function<Status(const CompoundStmt *)> scan = [&](const CompoundStmt *scope) -> Status {
    p.scope = scope;
    const IfStmt *work = work_block(scope);
    for (const Stmt *st : scope->body()) {
      if (seen_loop) {
        p.after.push_back(st);
        continue;
      }
      if (const auto *f = dyn_cast<ForStmt>(st)) {
        auto cl = counted_loop(f);
        if (!cl) return not_applicable("the reduction loop is not a counted loop");
        p.loop = *cl;
        seen_loop = true;
        continue;
      }
      if (const auto *i = dyn_cast<IfStmt>(st); i && only_returns(i->getThen()) && !i->getElse() && !p.guard) {
        if (auto st2 = take_guard(i, BO_LOr); !st2) return st2;
        continue;
      }
      // The thread's work under `if (T1 && T2 ...) { ... }`, the last statement;
      // its terms are evaluated apart, so they must not read memory.
      if (const auto *i = dyn_cast<IfStmt>(st);
          i && i == work && !p.guard && !has_return(i->getThen()) && !reads_memory(i->getCond())) {
        if (auto st2 = take_guard(i, BO_LAnd); !st2) return st2;
        p.guard_keeps = true;
        return scan(cast<CompoundStmt>(i->getThen()));
      }
      if (reads_memory(st) || writes_memory(st) || has_return(st)) touching.emplace_back(st, p.guard != nullptr);
      p.before.push_back(st);
    }
    return Status::ok();
  };
  if (auto st = scan(p.space.body); !st) return st.error();
  if (!seen_loop || p.after.empty()) return not_applicable("no reduction loop followed by statements using it");
  const ForStmt *f = p.loop.loop;
  if (has_return(f->getBody()) || has_break_or_goto(f->getBody()) || writes_memory(f->getBody()))
    return not_applicable("the reduction loop returns, breaks or stores");
  if (!uniform_bounds(p))
    return not_applicable(
        "the reduction loop's bounds differ between threads (read memory or depend on row or column)");
  auto accs = accumulations(f, k.context());
  if (!accs || accs->empty()) return not_applicable("the reduction loop does not accumulate");
  p.accs = *accs;
  for (const auto &[st, guarded] : touching) {
    const VarDecl *v = loaded_accumulator(p, st);
    if (!v || !guarded) return not_applicable("a statement before the reduction loop touches memory or returns");
    p.loaded_inits.push_back(v);
  }
  if (!classify_loads(p)) return not_applicable("a load in the loop depends on both row and column");
  bool a = false, b = false;
  for (const TileLoad &l : p.loads)
    (l.operand == 'A' ? a : b) = true;
  if (!a && !b) return not_applicable("no load of the loop is shared by a row or a column of outputs");
  return p;
}

} // namespace kbcc::transform
