// smem_tiling: a 2-D global-index kernel (thread per output (row, col)) whose
// reduction loop over k reads elements that depend on (row, k) and on
// (k, col) reads each of them once per output thread. With square blocks of
// `tile` threads, a block loads a tile of each operand into shared memory
// once per `tile` steps of k and every thread reads its operands there. The
// per-output sum keeps its order (k ascending), so results are bit-identical.
//
// Legal when: builtins only in the x and y global indexes, held by one
// variable each (col, row); no barriers, warp operations, shared memory or
// atomics; the top level is: statements that touch no memory, at most one
// early-return guard (its terms each depend on row only, col only or
// neither), one counted loop over k whose writes are accumulations and
// whose loads depend on (row, k), (k, col), k only, or neither, and then the
// statements that use the results (kept for in-range outputs only).
#include "cache/variant.h"
#include "transform/edits.h"
#include "transform/index_space.h"
#include "transform/transform.h"

#include <functional>

namespace kbcc::transform {
using namespace clang;

namespace {

// Whether `e` depends on `var`, directly or through local variables.
bool depends_on(const Expr *e, const VarDecl *var, int depth = 0) {
  if (!e || depth > 16) return false;
  bool found = false;
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s || found) return;
    if (const auto *ref = dyn_cast<DeclRefExpr>(s)) {
      if (ref->getDecl() == var)
        found = true;
      else if (const auto *v = dyn_cast<VarDecl>(ref->getDecl()); v && v->hasLocalStorage() && v->getInit())
        found = depends_on(v->getInit(), var, depth + 1);
    }
    for (const Stmt *c : s->children())
      visit(c);
  };
  visit(e);
  return found;
}

struct Load {
  const Expr *expr = nullptr; // the lvalue read
  char operand = 0;           // 'A' (row, k), 'B' (k, col)
};

struct Plan {
  IndexSpace space;
  const VarDecl *row = nullptr, *col = nullptr;
  const IfStmt *guard = nullptr;
  std::vector<const Expr *> row_terms, col_terms, uniform_terms; // of the guard's disjunction
  CountedLoop loop;
  std::vector<Load> loads;
  std::vector<const Stmt *> after; // statements after the loop
};

void disjuncts(const Expr *e, std::vector<const Expr *> &out) {
  const auto *b = dyn_cast<BinaryOperator>(e->IgnoreParenImpCasts());
  if (b && b->getOpcode() == BO_LOr) {
    disjuncts(b->getLHS(), out);
    disjuncts(b->getRHS(), out);
    return;
  }
  out.push_back(e);
}

bool only_return(const Stmt *s) {
  if (isa<ReturnStmt>(s)) return true;
  const auto *c = dyn_cast<CompoundStmt>(s);
  return c && c->size() == 1 && isa<ReturnStmt>(c->body_front());
}

// Classifies the loads of the loop body; false when one depends on row and col.
bool classify_loads(Plan &p) {
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

Expected<Plan> analyze(const KernelAst &k) {
  auto s = index_space(k, /*allow_2d=*/true, /*allow_atomics=*/false);
  if (!s) return s.error();
  if (s->dims != 2) return not_applicable("the kernel indexes one dimension");
  Plan p;
  p.space = *s;
  auto xs = index_variables(s->body, 0), ys = index_variables(s->body, 1);
  if (xs.size() != 1 || ys.size() != 1 || s->occurrences.size() != 2)
    return not_applicable("the x and y global indexes are not held by one variable each");
  p.col = xs[0], p.row = ys[0];
  bool seen_loop = false, touched_before = false;
  for (const Stmt *st : s->body->body()) {
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
    if (const auto *i = dyn_cast<IfStmt>(st); i && only_return(i->getThen()) && !i->getElse() && !p.guard) {
      p.guard = i;
      std::vector<const Expr *> terms;
      disjuncts(i->getCond(), terms);
      for (const Expr *t : terms) {
        bool r = refers_to(t, p.row), c = refers_to(t, p.col);
        if (r && c) return not_applicable("a guard term depends on both row and column");
        (r ? p.row_terms : c ? p.col_terms : p.uniform_terms).push_back(t);
      }
      continue;
    }
    touched_before |= reads_memory(st) || writes_memory(st) || has_return(st);
  }
  if (!seen_loop || p.after.empty()) return not_applicable("no reduction loop followed by statements using it");
  if (touched_before) return not_applicable("a statement before the reduction loop touches memory or returns");
  const ForStmt *f = p.loop.loop;
  if (has_return(f->getBody()) || has_break_or_goto(f->getBody()) || writes_memory(f->getBody()))
    return not_applicable("the reduction loop returns, breaks or stores");
  auto accs = accumulations(f, k.context());
  if (!accs || accs->empty()) return not_applicable("the reduction loop does not accumulate");
  if (!classify_loads(p)) return not_applicable("a load in the loop depends on both row and column");
  bool a = false, b = false;
  for (const Load &l : p.loads)
    (l.operand == 'A' ? a : b) = true;
  if (!a && !b) return not_applicable("no load of the loop is shared by a row or a column of outputs");
  return p;
}

std::string conjunction_not(const KernelAst &k, const std::vector<const Expr *> &terms) {
  std::string out = "true";
  for (const Expr *t : terms)
    out += " && !(" + k.text(t->getSourceRange()) + ")";
  return out;
}

Expected<std::vector<Axis>> space(const Input &in) {
  auto p = analyze(*in.ast);
  if (!p) return p.error();
  return std::vector<Axis>{{"tile", {"16", "32"}}};
}

Expected<Output> apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto p = analyze(k);
  if (!p) return p.error();
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
  for (const Load &l : p->loads) {
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
  size_t open = k.offset(p->space.body->getLBracLoc()), close = k.offset(p->space.body->getRBracLoc());
  e.insert(open + 1, "\n" + decls);
  if (p->guard) {
    size_t gb = 0, ge = 0;
    if (!k.span(p->guard->getSourceRange(), gb, ge)) return not_applicable("the guard is written in a macro");
    std::string uniform =
        p->uniform_terms.empty() ? "" : "if (!(" + conjunction_not(k, p->uniform_terms) + ")) return;\n  ";
    e.replace(gb, past_semicolon(src, ge),
              uniform + "const bool __kbcc_row_ok = " + conjunction_not(k, p->row_terms) +
                  ";\n  const bool __kbcc_col_ok = " + conjunction_not(k, p->col_terms) + ";");
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
  auto text = e.apply(src);
  if (!text) return text.error();
  Output out;
  out.source = *text;
  launch::LaunchMapping m;
  m.grid = {"ceil_div(grid.x * block.x, " + t + ")", "ceil_div(grid.y * block.y, " + t + ")", "1"};
  m.block = {t, t, "1"};
  m.shared = "0";
  m.preconditions = fixed_dims_preconditions(2);
  m.preconditions.push_back(coverage_precondition(p->space, 0, std::stol(t)));
  m.preconditions.push_back(coverage_precondition(p->space, 1, std::stol(t)));
  out.launch = m;
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
          "tiles loaded once per block",
          true,
          space,
          apply};
}

} // namespace kbcc::transform
