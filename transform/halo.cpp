// smem_tiling, stencil form: a 2-D global-index kernel (thread per output
// (y, x)) that reads a read-only array at X[(y + ry) * S + (x + rx)], with
// the offsets ry and rx the same for every thread or a counted loop's
// variable plus such a constant, reads every element once per neighbour that
// needs it. Here a block stages the elements its threads read (its tile and
// the halo around it) in shared memory once, and every read is served there.
//
// Legal when, on top of index_2d (no barriers, warp operations, shared
// memory, atomics or unseen calls; builtins only in the x and y indexes, and
// blockIdx.z and gridDim.z, a batch index every thread of a block shares,
// which the analysis takes as the same for every thread):
//   - X is a pointer parameter never assigned and used only in reads X[E];
//   - a served read's index E is (y + ry) * S + (x + rx) up to order, casts
//     to integers of 32 bits or more and locals that hold parts of it, with
//     S the same for every thread (a term +-S counts as a row), ry and rx
//     each +-t + c (t the variable of a counted loop around the read, the two
//     variables distinct) or c, c built from parameters, literals and uniform
//     locals; a coordinate may be clamped, min(max(y + ry, lo), hi) in any
//     nesting or argument order of integer min and max calls with lo and hi
//     the same for every thread (and uniform terms added to its value),
//     when every served read clamps that dimension alike (the tile then
//     holds, at each coordinate, the element the clamp selects there); E is
//     signed or 64-bit, so it does not wrap;
//   - the loops around the read have bounds the same for every thread and no
//     return, break or goto; the read sits under `if`s only (not in a switch,
//     a conditional operator or the right of && and ||), after no `continue`
//     or `return` other than `if (C) continue;` and `if (C) return;`, and the
//     conditions on its path read only its coordinates y + ry and x + rx (in
//     any form y +- t + c'), parameters and uniform locals;
//   - the statements before the first statement naming X (at the top level
//     of the body, or before and inside the body's last statement
//     `if (C) { ... }` when that holds the reads) declare plain scalars.
// Each thread runs `rows` rows of the original, blockDim.y apart: those
// statements run first for each row, their locals one value per row and a
// `return` (or C failing) ending the row, so every thread reaches the
// barrier. A block whose rows all live, and whose footprint (the rectangle
// of the reads' ranges around its outputs) fits the shared buffer, loads
// there exactly the elements some read of the block would load: those in
// that read's rectangle where its path holds, for reads whose loops run. The
// others run the original code, row after row. Conditions on the paths that
// are bounds on a coordinate, holding (or failing) over the block's whole
// range of it, are decided in a third copy. When the code after staging
// starts with a loop nest whose innermost body holds every served read,
// stores nothing and leaves only by `continue`, the staged copies run the
// rows inside that body (what the rows share is computed once per step).
// With `cols` = 4 a thread also runs four consecutive columns of each row;
// when the nest's innermost loop steps every read's column (x + t + c, one
// c and one row for all reads) and the elements are 4-byte scalars, it keeps
// per row of items a register window of the tile, loaded 16 bytes at a time
// (tile rows padded to 4 elements, the buffer aligned); a single store
// after the nest then writes each row's four columns at once where their
// indexes are consecutive and aligned.
// Each item's operations keep their order, so results are bit-identical.
#include "transform/halo.h"

#include "cache/variant.h"
#include "transform/edits.h"
#include "transform/index_space.h"
#include "transform/tiling_analysis.h"
#include "transform/uniform.h"

#include "clang/AST/ExprCXX.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace kbcc::transform {
using namespace clang;

namespace {

// A term the same for every thread: its text, sign and, when the compiler
// can evaluate it, its value.
struct Uniform {
  std::string text;
  int sign = 1;
  std::optional<long long> value;
};

struct Linear;

// A coordinate clamped to bounds the same for every thread, as images are
// read at their borders: min(max(E, lo), hi), in any nesting or argument
// order of integer min and max calls. `form` is the calls' text with `@`
// for E, `type` E's type.
struct Clamp {
  std::string form, type;
  const Expr *arg = nullptr;     // E
  std::shared_ptr<Linear> inner; // E as a sum
  int sign = 1;
};

// An index expression as a sum: the x and y indexes, loop variables and
// uniform terms, products of a non-uniform factor by the stride, and clamps.
struct Linear {
  int index[2] = {0, 0};
  std::map<const VarDecl *, int> loops;
  std::vector<Uniform> uniform;
  std::vector<std::pair<const Expr *, int>> products;
  std::vector<Clamp> clamps;
  std::string stride;
};

// One coordinate: clamp(the dimension's index + sign * loop + c), the clamp
// optional (and, with it, uniform terms added to its value).
struct Coord {
  const VarDecl *loop = nullptr;
  int sign = 0;
  std::string c = "0";            // uniform text
  std::optional<long long> value; // c's value, when known at compile time
  std::string clamp, type;        // Clamp's form and type; "" when none
};

struct HaloRead {
  const ArraySubscriptExpr *read = nullptr;
  Coord at[2];                                     // x (col) and y (row)
  std::vector<std::pair<const Expr *, bool>> path; // condition, value it has on the path
  std::vector<CountedLoop> loops;                  // around the read, outermost first
};

// A condition of the paths decided by the block's ranges: its value, and
// the checks (uniform text) under which it has that value everywhere.
struct Decided {
  bool holds = true;
  std::vector<std::string> checks;
};

struct Halo {
  Index2D index;
  const ParmVarDecl *array = nullptr;
  std::string stride, element, vector; // vector: the element's 4-vector type, if any
  std::string clamp[2], clamp_type[2]; // every read's clamp per dimension (Coord::clamp, type), if any
  std::vector<HaloRead> reads;
  std::map<const VarDecl *, std::pair<std::string, std::string>> bounds; // loop var: first, last + 1
  const IfStmt *wrapper = nullptr;                                       // `if (C) { ... }` holding the reads
  const Stmt *first = nullptr;      // the first statement naming X (at the top level of the body or the wrapper)
  std::vector<const Stmt *> before; // statements before it (the wrapper's test aside)
  // The loop nest that starts the statements after staging, each loop the
  // only statement of the one around it, with every served read in the
  // innermost body: its items then run inside that body.
  std::vector<const ForStmt *> nest;
  PerItemLocals hoisted; // locals declared before the reads
  std::map<const Expr *, Decided> decided;
};

const VarDecl *dim_var(const Halo &h, int d) { return d == 0 ? h.index.x : h.index.y; }

// The original threads a thread runs: `cols` consecutive ones along x times
// `rows` along y, blockDim.y apart. Item q is column q % cols of row
// q / cols.
struct Items {
  long rows = 1, cols = 1;
  bool wide = false; // a row's four columns stored at once (group_store)
  long count() const { return rows * cols; }
  // Item `q`'s row and column (of the thread's), as text.
  std::string row(const std::string &q) const { return cols == 1 ? q : "(" + q + " / " + std::to_string(cols) + "u)"; }
  std::string col(const std::string &q) const { return "(" + q + " % " + std::to_string(cols) + "u)"; }
};

// `s` that also writes reads of blockIdx.z and gridDim.z, a batch index
// every thread of a block shares: the tile is the block's.
Subst with_batch(Subst s) {
  s.expr = [inner = s.expr](const Expr *e) -> std::optional<std::string> {
    if (inner)
      if (auto text = inner(e)) return text;
    if (isa<ExplicitCastExpr>(e->IgnoreParenImpCasts())) return std::nullopt;
    auto b = as_builtin(e);
    if (!b || b->dim != 2 || (b->var != Builtin::BlockIdx && b->var != Builtin::GridDim)) return std::nullopt;
    return std::string(b->var == Builtin::BlockIdx ? "blockIdx.z" : "gridDim.z");
  };
  return s;
}

// uniform_text, where the same for every thread of a block is enough.
std::optional<std::string> block_text(const KernelAst &k, const Expr *e, const Subst &subst = {}) {
  return uniform_text(k, e, with_batch(subst));
}

// Whether `call` is an integer min or max of two integers (CUDA's min, max,
// umin, umax, llmin, ..., or std::min, std::max).
bool is_min_max(const CallExpr *call) {
  const FunctionDecl *fd = call ? call->getDirectCallee() : nullptr;
  if (!fd || call->getNumArgs() != 2 || !call->getType()->isIntegerType()) return false;
  std::string n = fd->getQualifiedNameAsString();
  static const std::set<std::string> names = {"min",   "max",    "umin",   "umax",     "llmin",
                                              "llmax", "ullmin", "ullmax", "std::min", "std::max"};
  return names.count(n) && call->getArg(0)->getType()->isIntegerType() && call->getArg(1)->getType()->isIntegerType();
}

// The argument of min/max call `call` that is not the same for every thread,
// when exactly one is: its index; -1 otherwise.
int varying_arg(const KernelAst &k, const CallExpr *call) {
  bool u0 = block_text(k, call->getArg(0)).has_value(), u1 = block_text(k, call->getArg(1)).has_value();
  return u0 == u1 ? -1 : (u0 ? 1 : 0);
}

// `e` as a clamp: nested integer min and max calls, each with one argument
// the same for every thread (written outside macros) and the other the next
// call or, innermost, E (`arg`), not itself such a call. Its `inner` is
// left unset.
std::optional<Clamp> as_clamp(const KernelAst &k, const Expr *e) {
  const auto *call = dyn_cast<CallExpr>(e->IgnoreParenImpCasts());
  if (!is_min_max(call)) return std::nullopt;
  int v = varying_arg(k, call);
  std::string callee = k.text(call->getCallee()->getSourceRange());
  auto bound = v < 0 ? std::nullopt : block_text(k, call->getArg(1 - v));
  if (callee.empty() || !bound) return std::nullopt;
  const Expr *arg = call->getArg(v);
  Clamp c;
  if (auto next = as_clamp(k, arg)) {
    c = *next;
  } else {
    if (isa<CallExpr>(arg->IgnoreParenImpCasts()) && is_min_max(cast<CallExpr>(arg->IgnoreParenImpCasts())))
      return std::nullopt;
    c.form = "@";
    c.type = type_text(arg->getType(), k.context());
    c.arg = arg;
  }
  c.form = callee + "(" + (v == 0 ? c.form + ", " + *bound : *bound + ", " + c.form) + ")";
  return c;
}

// Adds `e` (times `sign`) to `out`; false when it is not such a sum. Locals
// never assigned are followed into their initializers.
bool linearize(const KernelAst &k, const Halo &h, const std::set<const VarDecl *> &loop_vars, const Expr *e, int sign,
               Linear &out, int depth = 0) {
  const ASTContext &ctx = k.context();
  e = strip_int_casts(e, ctx);
  if (depth > 8 || !e->getType()->isIntegerType()) return false;
  if (const auto *b = dyn_cast<BinaryOperator>(e)) {
    if (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub)
      return linearize(k, h, loop_vars, b->getLHS(), sign, out, depth) &&
             linearize(k, h, loop_vars, b->getRHS(), b->getOpcode() == BO_Add ? sign : -sign, out, depth);
    if (b->getOpcode() == BO_Mul) {
      auto l = block_text(k, b->getLHS()), r = block_text(k, b->getRHS());
      if (l && r) {
        out.uniform.push_back({"(" + *l + " * " + *r + ")", sign, constant_value(b, ctx)});
        return true;
      }
      if (!l && !r) return false;
      std::string s = l ? *l : *r;
      if (!out.stride.empty() && out.stride != s) return false;
      out.stride = s;
      out.products.push_back({l ? b->getRHS() : b->getLHS(), sign});
      return true;
    }
  }
  if (const auto *u = dyn_cast<UnaryOperator>(e); u && (u->getOpcode() == UO_Minus || u->getOpcode() == UO_Plus))
    return linearize(k, h, loop_vars, u->getSubExpr(), u->getOpcode() == UO_Minus ? -sign : sign, out, depth);
  if (auto c = as_clamp(k, e)) {
    c->inner = std::make_shared<Linear>();
    c->sign = sign;
    if (!linearize(k, h, loop_vars, c->arg, 1, *c->inner, depth + 1)) return false;
    out.clamps.push_back(*c);
    return true;
  }
  if (const VarDecl *v = var_of(e)) {
    for (int d = 0; d < 2; ++d)
      if (v == dim_var(h, d)) {
        out.index[d] += sign;
        return true;
      }
    if (loop_vars.count(v)) {
      out.loops[v] += sign;
      return true;
    }
    if (!isa<ParmVarDecl>(v) && v->hasLocalStorage() && v->getInit() && !assigns(k.kernel()->getBody(), v) &&
        !block_text(k, e))
      return linearize(k, h, loop_vars, v->getInit(), sign, out, depth + 1);
  }
  auto text = block_text(k, e);
  if (!text) return false;
  out.uniform.push_back({*text, sign, constant_value(e, ctx)});
  return true;
}

// The coordinate of dimension `d` that `l` (without products) is, if any.
std::optional<Coord> coord_of(const Linear &l, int d) {
  if (!l.clamps.empty()) { // the clamp, plus uniform terms (an image's first row in a batch)
    const Clamp &cl = l.clamps.front();
    bool alone = l.clamps.size() == 1 && cl.sign == 1 && l.products.empty() && l.index[0] == 0 && l.index[1] == 0 &&
                 std::all_of(l.loops.begin(), l.loops.end(), [](const auto &v) { return v.second == 0; });
    auto c = alone ? coord_of(*cl.inner, d) : std::nullopt;
    if (!c || !c->clamp.empty()) return std::nullopt;
    std::string outside;
    for (const Uniform &u : l.uniform)
      outside += (u.sign > 0 ? " + " : " - ") + u.text;
    c->clamp = outside.empty() ? cl.form : "(" + cl.form + outside + ")";
    c->type = cl.type;
    return c;
  }
  if (!l.products.empty() || l.index[d] != 1 || l.index[1 - d] != 0) return std::nullopt;
  Coord c;
  for (const auto &[v, s] : l.loops) {
    if (s == 0) continue;
    if (c.loop || (s != 1 && s != -1)) return std::nullopt;
    c.loop = v;
    c.sign = s;
  }
  c.value = 0;
  for (const Uniform &u : l.uniform) {
    c.c += (u.sign > 0 ? " + " : " - ") + u.text;
    c.value = c.value && u.value ? std::optional(*c.value + u.sign * *u.value) : std::nullopt;
  }
  c.c = "(" + c.c + ")";
  return c;
}

// The coordinate of dimension `d` that `e` is, if any.
std::optional<Coord> coord_expr(const KernelAst &k, const Halo &h, const std::set<const VarDecl *> &loop_vars,
                                const Expr *e, int d) {
  Linear l;
  if (!linearize(k, h, loop_vars, e, 1, l)) return std::nullopt;
  return coord_of(l, d);
}

// The coordinates of a read's index E = (y + ry) * S + (x + rx).
std::optional<HaloRead> decompose(const KernelAst &k, Halo &h, const std::set<const VarDecl *> &loop_vars,
                                  const ArraySubscriptExpr *read) {
  const Expr *idx = read->getIdx()->IgnoreParenImpCasts();
  if (!idx->getType()->isSignedIntegerType() && k.context().getTypeSize(idx->getType()) < 64) return std::nullopt;
  Linear l;
  if (!linearize(k, h, loop_vars, idx, 1, l) || l.products.empty()) return std::nullopt;
  Linear row, col = l;
  col.products.clear();
  col.uniform.clear();
  for (const Uniform &u : l.uniform) // +-S is a row
    (u.text == l.stride ? row.uniform.push_back({"1", u.sign, 1}) : col.uniform.push_back(u));
  for (const auto &[factor, s] : l.products) {
    Linear f;
    if (!linearize(k, h, loop_vars, factor, s, f) || !f.products.empty()) return std::nullopt;
    for (int d = 0; d < 2; ++d)
      row.index[d] += f.index[d];
    for (const auto &[v, n] : f.loops)
      row.loops[v] += n;
    row.uniform.insert(row.uniform.end(), f.uniform.begin(), f.uniform.end());
    row.clamps.insert(row.clamps.end(), f.clamps.begin(), f.clamps.end());
  }
  auto y = coord_of(row, 1), x = coord_of(col, 0);
  if (!y || !x || (y->loop && y->loop == x->loop)) return std::nullopt;
  if (!h.stride.empty() && h.stride != l.stride) return std::nullopt;
  h.stride = l.stride;
  HaloRead r;
  r.read = read;
  r.at[0] = *x;
  r.at[1] = *y;
  return r;
}

// The substitution writing a read's coordinates, in any form y +- t + c',
// as `base[d] + (c' - c)` in the form's own type.
Subst coord_subst(const KernelAst &k, const Halo &h, const std::set<const VarDecl *> &loop_vars, const HaloRead &r,
                  const std::string base[2]) {
  Subst s;
  s.expr = [&k, &h, loop_vars, r, b0 = base[0], b1 = base[1]](const Expr *e) -> std::optional<std::string> {
    if (isa<ImplicitCastExpr>(e)) return std::nullopt; // the coordinate's own type, converted as written
    for (int d = 0; d < 2; ++d) {
      if (!depends_on(e, dim_var(h, d))) continue;
      auto c = coord_expr(k, h, loop_vars, e, d);
      if (!c || !c->clamp.empty() || c->loop != r.at[d].loop || c->sign != r.at[d].sign) continue;
      return "((" + type_text(e->getType(), k.context()) + ")(" + (d == 0 ? b0 : b1) + " + " + c->c + " - " +
             r.at[d].c + "))";
    }
    return std::nullopt;
  };
  return s;
}

// Whether `s` has a `continue` or `return` that leaves it (not a nested loop's).
bool escapes(const Stmt *s) {
  if (!s) return false;
  if (isa<ReturnStmt>(s)) return true;
  if (isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s)) return has_return(s);
  if (isa<ContinueStmt>(s)) return true;
  for (const Stmt *c : s->children())
    if (escapes(c)) return true;
  return false;
}

// C when `s` is `if (C) continue;` or `if (C) return;` (or in braces), without else.
const Expr *exit_guard(const Stmt *s) {
  const auto *i = dyn_cast<IfStmt>(s);
  if (!i || i->getElse() || i->getInit() || i->getConditionVariable()) return nullptr;
  const Stmt *then = i->getThen();
  if (const auto *c = dyn_cast<CompoundStmt>(then); c && c->size() == 1) then = c->body_front();
  const auto *ret = dyn_cast<ReturnStmt>(then);
  return isa<ContinueStmt>(then) || (ret && !ret->getRetValue()) ? i->getCond() : nullptr;
}

// The served reads of X under `main` (statements the block runs after
// staging), with their paths and loops.
void find_reads(const KernelAst &k, Halo &h, const std::vector<const Stmt *> &main) {
  std::vector<std::pair<const Expr *, bool>> path;
  std::vector<CountedLoop> loops;
  std::set<const VarDecl *> loop_vars;
  std::function<void(const Stmt *, bool)> visit = [&](const Stmt *s, bool plain) {
    if (!s) return;
    if (const auto *i = dyn_cast<IfStmt>(s)) {
      visit(i->getCond(), plain);
      path.emplace_back(i->getCond(), true);
      visit(i->getThen(), plain);
      path.back().second = false;
      visit(i->getElse(), plain);
      path.pop_back();
      return;
    }
    if (const auto *cs = dyn_cast<CompoundStmt>(s)) { // after `if (C) continue/return;`, !C holds
      size_t pushed = 0;
      for (const Stmt *child : cs->body()) {
        visit(child, plain);
        if (const Expr *c = exit_guard(child)) {
          path.emplace_back(c, false);
          ++pushed;
        } else if (escapes(child)) {
          plain = false;
        }
      }
      path.resize(path.size() - pushed);
      return;
    }
    if (const auto *f = dyn_cast<ForStmt>(s)) {
      auto loop = counted_loop(f);
      bool ok = plain && loop && block_text(k, loop->init) && block_text(k, loop->bound) &&
                loop->var->getType()->isSignedIntegerType() && !has_return(f->getBody()) &&
                !has_break_or_goto(f->getBody());
      if (!ok) {
        for (const Stmt *child : s->children())
          visit(child, false);
        return;
      }
      loops.push_back(*loop);
      loop_vars.insert(loop->var);
      visit(f->getBody(), true);
      loop_vars.erase(loop->var);
      loops.pop_back();
      return;
    }
    if (const auto *c = dyn_cast<ImplicitCastExpr>(s); c && c->getCastKind() == CK_LValueToRValue && plain)
      if (const auto *sub = dyn_cast<ArraySubscriptExpr>(c->getSubExpr()->IgnoreParens());
          sub && var_of(sub->getBase()) == h.array)
        if (auto r = decompose(k, h, loop_vars, sub)) {
          r->path = path;
          r->loops = loops;
          const std::string base[2] = {"0", "0"};
          bool uniform_path = true;
          for (const auto &[cond, value] : path)
            uniform_path = uniform_path && block_text(k, cond, coord_subst(k, h, loop_vars, *r, base));
          if (uniform_path) {
            h.reads.push_back(*r);
            return;
          }
        }
    bool nested = isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<SwitchStmt>(s) || isa<ConditionalOperator>(s) ||
                  isa<BinaryConditionalOperator>(s) || isa<LambdaExpr>(s) || isa<CXXForRangeStmt>(s);
    if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isLogicalOp()) {
      visit(b->getLHS(), plain);
      visit(b->getRHS(), false);
      return;
    }
    for (const Stmt *child : s->children())
      visit(child, plain && !nested);
  };
  for (const Stmt *s : main)
    visit(s, true);
}

// The loop variables around read `r`.
std::set<const VarDecl *> loop_vars_of(const HaloRead &r) {
  std::set<const VarDecl *> out;
  for (const CountedLoop &l : r.loops)
    out.insert(l.var);
  return out;
}

// The range [lo, hi] of coordinate `c`'s offset (+-t + c), as uniform texts.
std::pair<std::string, std::string> offset_range(const Halo &h, const Coord &c) {
  if (!c.loop) return {c.c, c.c};
  const auto &[first, end] = h.bounds.at(c.loop);
  if (c.sign > 0) return {"(" + first + " + " + c.c + ")", "(" + end + " - 1 + " + c.c + ")"};
  return {"(" + c.c + " - (" + end + " - 1))", "(" + c.c + " - " + first + ")"};
}

// Records, for every condition on the reads' paths whose terms are all
// bounds on a coordinate, the checks deciding it over the block.
void find_decided(const KernelAst &k, Halo &h) {
  std::set<const Expr *> undecidable;
  for (size_t i = 0; i < h.reads.size(); ++i) {
    const HaloRead &r = h.reads[i];
    auto loop_vars = loop_vars_of(r);
    for (const auto &[cond, value] : r.path) {
      std::vector<const Expr *> terms;
      split_terms(cond, value ? BO_LAnd : BO_LOr, terms);
      Decided dec{value, {}};
      for (const Expr *t : terms) {
        const auto *b = dyn_cast<BinaryOperator>(t->IgnoreParenImpCasts());
        if (!b || !b->isRelationalOp() || !b->getLHS()->getType()->isSignedIntegerType() ||
            !b->getRHS()->getType()->isSignedIntegerType())
          break;
        std::string check;
        for (int d = 0; d < 2 && check.empty(); ++d)
          for (bool left : {true, false}) {
            const Expr *side = left ? b->getLHS() : b->getRHS();
            auto c = depends_on(side, dim_var(h, d)) ? coord_expr(k, h, loop_vars, side, d) : std::nullopt;
            auto bound = block_text(k, left ? b->getRHS() : b->getLHS());
            if (!c || !c->clamp.empty() || !bound || c->loop != r.at[d].loop || c->sign != r.at[d].sign) continue;
            BinaryOperatorKind op = left ? b->getOpcode() : BinaryOperator::reverseComparisonOp(b->getOpcode());
            if (!value) op = BinaryOperator::negateComparisonOp(op);
            std::string a = d == 0 ? "x" : "y", n = std::to_string(i);
            std::string lo = "__kbcc_b" + a + " + __kbcc_" + a + "lo" + n,
                        hi = "__kbcc_b" + a + " + __kbcc_e" + a + " - 1 + __kbcc_" + a + "hi" + n;
            bool lower = op == BO_GE || op == BO_GT;
            check = "(" + (lower ? lo : hi) + " + " + c->c + " - " + r.at[d].c + ") " +
                    BinaryOperator::getOpcodeStr(op).str() + " (long long)" + *bound;
            break;
          }
        if (check.empty()) break;
        dec.checks.push_back(check);
      }
      if (dec.checks.size() != terms.size()) {
        undecidable.insert(cond);
        continue;
      }
      Decided &d = h.decided[cond];
      d.holds = value;
      d.checks.insert(d.checks.end(), dec.checks.begin(), dec.checks.end());
    }
  }
  for (const Expr *c : undecidable)
    h.decided.erase(c);
}

// The statements that run after staging, for array `p`: from the first
// top-level statement naming it, or, when that is the body's last statement
// `if (C) { ... }`, from the first statement of its block naming it. Sets
// h.before/first/wrapper.
std::optional<std::vector<const Stmt *>> main_statements(Halo &h, const ParmVarDecl *p) {
  h.before.clear();
  h.wrapper = nullptr;
  h.first = nullptr;
  auto split = [&](const CompoundStmt *block) {
    std::vector<const Stmt *> main;
    for (const Stmt *st : block->body()) {
      if (!h.first && !refers_to(st, p))
        h.before.push_back(st);
      else
        main.push_back(st);
      if (!h.first && !main.empty()) h.first = st;
    }
    return main;
  };
  std::vector<const Stmt *> main = split(h.index.space.body);
  if (!h.first) return std::nullopt;
  const auto *w = dyn_cast<IfStmt>(h.first);
  const auto *block = w ? dyn_cast<CompoundStmt>(w->getThen()) : nullptr;
  bool last = std::all_of(main.begin() + 1, main.end(), [](const Stmt *s) { return isa<NullStmt>(s); });
  if (block && last && !w->getElse() && !w->getInit() && !w->getConditionVariable() && !refers_to(w->getCond(), p)) {
    h.wrapper = w;
    h.first = nullptr;
    main = split(block);
  }
  return main;
}

// The loop nest at the start of `main` that holds every served read in its
// innermost body, when that body stores nothing and leaves only by
// `continue` (so each item's steps can interleave with the others').
void find_nest(Halo &h, const std::vector<const Stmt *> &main) {
  std::vector<const ForStmt *> nest;
  const Stmt *s = main.empty() ? nullptr : main.front();
  while (const auto *f = dyn_cast_or_null<ForStmt>(s)) {
    nest.push_back(f);
    s = f->getBody();
    if (const auto *c = dyn_cast<CompoundStmt>(s); c && c->size() == 1) s = c->body_front();
  }
  if (nest.empty()) return;
  const Stmt *inner = nest.back()->getBody();
  if (writes_memory(inner) || has_return(inner) || has_break_or_goto(inner)) return;
  for (const HaloRead &r : h.reads) {
    if (r.loops.size() < nest.size()) return;
    for (size_t i = 0; i < nest.size(); ++i)
      if (r.loops[i].loop != nest[i]) return;
  }
  h.nest = nest;
}

// The offsets [lo, hi] of coordinate `c` of read `r` from the thread's
// output, when they are known at compile time (offset_range's texts as
// numbers): a constant offset, plus a loop variable whose loop has constant
// bounds. nullopt otherwise.
std::optional<std::pair<long long, long long>> known_offset_range(const KernelAst &k, const HaloRead &r,
                                                                  const Coord &c) {
  if (!c.value || !c.loop) return c.value ? std::optional(std::pair(*c.value, *c.value)) : std::nullopt;
  for (const CountedLoop &l : r.loops) {
    if (l.var != c.loop) continue;
    auto first = constant_value(l.init, k.context()), last = constant_value(l.bound, k.context());
    if (!first || !last) return std::nullopt;
    long long a = c.sign * *first, b = c.sign * (*last - (l.inclusive ? 0 : 1));
    return std::pair(*c.value + std::min(a, b), *c.value + std::max(a, b));
  }
  return std::nullopt;
}

// Whether every read of `h` is known to stay within one element of the
// thread's output in each dimension (a 3x3 footprint at most): the L1 cache
// already serves that reuse, and on such kernels (five-point and 3x3
// stencils, radius-1 filters) the staged form measured slower.
bool within_one(const KernelAst &k, const Halo &h) {
  for (const HaloRead &r : h.reads)
    for (const Coord &c : r.at) {
      auto range = known_offset_range(k, r, c);
      if (!range || range->first < -1 || range->second > 1) return false;
    }
  return true;
}

// Sets h.clamp from the reads' coordinates; false when two reads differ in
// a dimension's clamp (or only one has one): the tile holds one element per
// coordinate, the one the clamp selects.
bool common_clamps(Halo &h) {
  for (int d = 0; d < 2 && !h.reads.empty(); ++d) {
    h.clamp[d] = h.reads.front().at[d].clamp;
    h.clamp_type[d] = h.reads.front().at[d].type;
    for (const HaloRead &r : h.reads)
      if (r.at[d].clamp != h.clamp[d] || r.at[d].type != h.clamp_type[d]) return false;
  }
  return true;
}

Expected<Halo> analyze(const KernelAst &k) {
  auto idx = index_2d(k, /*allow_batch=*/true);
  if (!idx) return idx.error();
  Halo base;
  base.index = *idx;
  if (assigns(idx->space.body, idx->x) || assigns(idx->space.body, idx->y))
    return not_applicable("an index variable is assigned");
  bool jumps = false;
  walk(idx->space.body, [&](const Stmt *s) { jumps = jumps || isa<GotoStmt>(s) || isa<IndirectGotoStmt>(s); });
  if (jumps) return not_applicable("the kernel has goto");
  std::string reason = "the kernel reads no parameter array at (y + ry) * S + (x + rx) with ry, rx the same for "
                       "every thread or a loop variable plus such a value";
  for (const ParmVarDecl *p : k.kernel()->parameters()) {
    if (!p->getType()->isPointerType() || !p->getType()->getPointeeType()->isScalarType() ||
        assigns(k.kernel()->getBody(), p))
      continue;
    Halo h = base;
    h.array = p;
    int uses = references(k.kernel()->getBody(), p), reads = 0;
    walk(k.kernel()->getBody(), [&](const Stmt *s) {
      const auto *c = dyn_cast<ImplicitCastExpr>(s);
      const auto *sub = c && c->getCastKind() == CK_LValueToRValue
                            ? dyn_cast<ArraySubscriptExpr>(c->getSubExpr()->IgnoreParens())
                            : nullptr;
      if (sub && var_of(sub->getBase()) == p) ++reads;
    });
    if (uses == 0) continue;
    if (uses != reads) { // the reason only for an array the kernel does read
      if (reads > 0) reason = "'" + p->getName().str() + "' is used other than by reads of its elements";
      continue;
    }
    auto main = main_statements(h, p);
    if (!main) continue;
    find_reads(k, h, *main);
    bool reuse = h.reads.size() >= 2;
    for (const HaloRead &r : h.reads)
      reuse = reuse || r.at[0].loop || r.at[1].loop;
    if (!reuse) continue;
    if (within_one(k, h)) {
      reason = "'" + p->getName().str() +
               "' is read at most one element from each output in each dimension: the L1 cache serves that reuse";
      continue;
    }
    if (!common_clamps(h)) {
      reason = "'" + p->getName().str() + "' is read with a coordinate clamped by some reads and not alike by others";
      continue;
    }
    auto locals = per_item_locals(k.kernel()->getBody(), h.before, "before the stencil's reads");
    if (!locals) return locals.error();
    h.hoisted = *locals;
    find_nest(h, *main);
    for (const HaloRead &r : h.reads)
      for (const CountedLoop &l : r.loops) {
        std::string hi = *block_text(k, l.bound);
        h.bounds[l.var] = {*block_text(k, l.init), l.inclusive ? "(" + hi + " + 1)" : hi};
      }
    h.element = type_text(p->getType()->getPointeeType(), k.context());
    h.vector = vector_of(p->getType()->getPointeeType());
    find_decided(k, h);
    return h;
  }
  return not_applicable(reason);
}

// Whether `s` is written outside macros.
bool spans(const KernelAst &k, const Stmt *s) {
  size_t b = 0, x = 0;
  return k.span(s->getSourceRange(), b, x);
}

// Replacements that make code run as item `q` of the thread: the x and y
// indexes read the item's column and row, hoisted locals their own element,
// and `return` jumps to `label`.
std::vector<Repl> item_repls(const KernelAst &k, const Halo &h, const Items &items, const std::string &label,
                             const std::string &q = "__kbcc_q") {
  std::vector<Repl> out;
  const std::string &src = k.source();
  for (const GlobalIndex &g : h.index.space.occurrences) {
    size_t b = 0, x = 0;
    if (!k.span(g.expr->getSourceRange(), b, x)) continue;
    if (g.dim == 1)
      out.push_back({b, x,
                     as_index(src.substr(b, x - b), "blockIdx.y * blockDim.y * " + std::to_string(items.rows) +
                                                        "u + threadIdx.y + " + items.row(q) + " * blockDim.y")});
    if (g.dim == 0 && items.cols > 1)
      out.push_back({b, x,
                     as_index(src.substr(b, x - b), "(blockIdx.x * blockDim.x + threadIdx.x) * " +
                                                        std::to_string(items.cols) + "u + " + items.col(q))});
  }
  walk(h.index.space.body, [&](const Stmt *s) {
    size_t b = 0, x = 0;
    if (const auto *ref = dyn_cast<DeclRefExpr>(s)) {
      const auto *v = dyn_cast<VarDecl>(ref->getDecl());
      if (v && h.hoisted.per_item(v) && k.span(ref->getSourceRange(), b, x))
        out.push_back({b, x, v->getName().str() + "[" + q + "]"});
    }
    if (isa<ReturnStmt>(s) && k.span(s->getSourceRange(), b, x))
      out.push_back({b, past_semicolon(src, x), "goto " + label + ";"});
  });
  return out;
}

// An unrolled loop over the thread's items running `body`.
std::string per_item(const Items &items, const std::string &body) {
  return "  #pragma unroll\n  for (int __kbcc_q = 0; __kbcc_q < " + std::to_string(items.count()) +
         "; ++__kbcc_q) {\n" + body + "  }\n";
}

// The statements before staging, once per item: those before `h.first`
// (from `open`), where declarations become assignments of the hoisted
// locals (one element per item), and `return` (or a wrapper's test failing)
// ends the item, which then takes no part.
std::string prologue_text(const KernelAst &k, const Halo &h, const Items &items, size_t open) {
  const std::string &src = k.source();
  std::vector<Repl> repls = item_repls(k, h, items, "__kbcc_p");
  for (const Stmt *st : h.before)
    if (const auto *d = dyn_cast<DeclStmt>(st)) {
      std::string text;
      for (const Decl *decl : d->decls()) {
        const auto *v = cast<VarDecl>(decl);
        size_t ib = 0, ix = 0;
        if (v->getInit() && k.span(v->getInit()->getSourceRange(), ib, ix))
          text += v->getName().str() + "[__kbcc_q] = " + spliced(src, ib, ix, disjoint(repls)) + "; ";
      }
      repls.push_back({statement_begin(k, d), statement_end(k, d), text.empty() ? ";" : text});
    }
  repls = disjoint(repls);
  std::string R = std::to_string(items.count()), out;
  out += item_declarations(k, h.hoisted, items.count());
  out += "  bool __kbcc_live[" + R + "];\n";
  std::string item = "    __kbcc_live[__kbcc_q] = false;\n";
  size_t first = statement_begin(k, h.first);
  if (h.wrapper) { // up to the wrapper, its test, then its block up to the first statement naming X
    size_t cb = 0, cx = 0;
    span_of(k, h.wrapper->getCond(), cb, cx);
    item += spliced(src, open, statement_begin(k, h.wrapper), repls) + "\n    if (!(" + spliced(src, cb, cx, repls) +
            ")) goto __kbcc_p;\n" +
            spliced(src, k.offset(cast<CompoundStmt>(h.wrapper->getThen())->getLBracLoc()) + 1, first, repls);
  } else {
    item += spliced(src, open, first, repls);
  }
  bool jumps = h.wrapper != nullptr;
  for (const Stmt *st : h.before)
    jumps = jumps || has_return(st);
  item += "\n    __kbcc_live[__kbcc_q] = true;\n" + std::string(jumps ? "    __kbcc_p:;\n" : "");
  return out + per_item(items, item) + "  bool __kbcc_all = true;\n" +
         per_item(items, "    __kbcc_all = __kbcc_all && __kbcc_live[__kbcc_q];\n");
}

// The block's ranges, its footprint and the staging of the elements its
// reads load. The block's outputs span (blockDim.x * cols) x (blockDim.y *
// rows). With several columns per thread, the tile's rows are a multiple of
// 4 elements long and 16-byte aligned, for the register window's loads.
std::string staging_text(const KernelAst &k, const Halo &h, const Items &items, long cap) {
  std::string out = std::string("  const long long __kbcc_ex = ") +
                    (items.cols == 1 ? "blockDim.x" : "(long long)blockDim.x * " + std::to_string(items.cols)) +
                    ", __kbcc_ey = (long long)blockDim.y * " + std::to_string(items.rows) + ";\n";
  out += "  const long long __kbcc_bx = (long long)blockIdx.x * __kbcc_ex, __kbcc_by = (long long)blockIdx.y * "
         "__kbcc_ey;\n";
  out += "  long long __kbcc_x0 = 0, __kbcc_x1 = -1, __kbcc_y0 = 0, __kbcc_y1 = -1;\n  bool __kbcc_any = false;\n";
  std::string need, rects; // rects: each read's rectangle in tile coordinates
  for (size_t i = 0; i < h.reads.size(); ++i) {
    const HaloRead &r = h.reads[i];
    std::string n = std::to_string(i), run = "true";
    for (const CountedLoop &l : r.loops)
      run += " && " + h.bounds.at(l.var).first + " < " + h.bounds.at(l.var).second;
    out += "  const bool __kbcc_run" + n + " = " + run + ";\n";
    for (int d = 0; d < 2; ++d) {
      std::string a = d == 0 ? "x" : "y";
      auto [lo, hi] = offset_range(h, r.at[d]);
      out += "  const long long __kbcc_" + a + "lo" + n + " = (long long)" + lo + ", __kbcc_" + a + "hi" + n +
             " = (long long)" + hi + ";\n";
    }
    out += "  if (__kbcc_run" + n + ") {\n    if (!__kbcc_any) { __kbcc_x0 = __kbcc_xlo" + n +
           "; __kbcc_x1 = __kbcc_xhi" + n + "; __kbcc_y0 = __kbcc_ylo" + n + "; __kbcc_y1 = __kbcc_yhi" + n +
           "; }\n    __kbcc_any = true;\n";
    for (const char *a : {"x", "y"})
      out += std::string("    __kbcc_") + a + "0 = __kbcc_" + a + "lo" + n + " < __kbcc_" + a + "0 ? __kbcc_" + a +
             "lo" + n + " : __kbcc_" + a + "0;\n    __kbcc_" + a + "1 = __kbcc_" + a + "hi" + n + " > __kbcc_" + a +
             "1 ? __kbcc_" + a + "hi" + n + " : __kbcc_" + a + "1;\n";
    out += "  }\n";
    // Element (r, c) of the footprint (tile row ty, column tx) is one this
    // read loads when it lies in the read's rectangle and its path holds there.
    const std::string base[2] = {"__kbcc_c", "__kbcc_r"};
    std::string all = "__kbcc_run" + n;
    for (int d = 0; d < 2; ++d) {
      std::string a = d == 0 ? "x" : "y", lo = "__kbcc_" + a + "a" + n, hi = "__kbcc_" + a + "b" + n;
      rects += "    const int " + lo + " = (int)(__kbcc_" + a + "lo" + n + " - __kbcc_" + a + "0), " + hi +
               " = (int)(__kbcc_" + a + "hi" + n + " - __kbcc_" + a + "0 + __kbcc_e" + a + ") - 1;\n";
      all += " && __kbcc_t" + a + " >= " + lo + " && __kbcc_t" + a + " <= " + hi;
    }
    Subst subst = coord_subst(k, h, loop_vars_of(r), r, base);
    for (const auto &[cond, value] : r.path)
      all += (value ? " && " : " && !") + *block_text(k, cond, subst);
    need += (need.empty() ? "(" : " || (") + all + ")";
  }
  std::string C = std::to_string(cap);
  out += "  const long long __kbcc_fh = __kbcc_y1 - __kbcc_y0 + __kbcc_ey, __kbcc_fw = " +
         std::string(items.cols == 1 ? "__kbcc_x1 - __kbcc_x0 + __kbcc_ex"
                                     : "(__kbcc_x1 - __kbcc_x0 + __kbcc_ex + 3) / 4 * 4") +
         ";\n";
  out += "  const bool __kbcc_fast = __syncthreads_and(__kbcc_all && __kbcc_any && __kbcc_fh <= " + C +
         " && __kbcc_fw <= " + C + " && __kbcc_fh * __kbcc_fw <= " + C + ");\n";
  out += items.cols == 1
             ? "  __shared__ " + h.element + " __kbcc_tile[" + C + "];\n"
             : "  __shared__ __align__(16) " + h.element + " __kbcc_tile[" + std::to_string(cap + 8) + "];\n";
  out += "  if (__kbcc_fast) {\n";
  out += "    const int __kbcc_fhi = (int)__kbcc_fh, __kbcc_fwi = (int)__kbcc_fw;\n" + rects;
  out += "    for (int __kbcc_ty = threadIdx.y; __kbcc_ty < __kbcc_fhi; __kbcc_ty += blockDim.y) {\n";
  out += "      __attribute__((unused)) const long long __kbcc_r = __kbcc_by + __kbcc_y0 + __kbcc_ty;\n";
  // A clamped coordinate's element is the one the clamp selects.
  auto clamped = [&](int d, const std::string &at) {
    size_t hole = h.clamp[d].find('@');
    return std::string(h.clamp[d]).replace(hole, 1, "((" + h.clamp_type[d] + ")(" + at + "))");
  };
  bool clamps = !h.clamp[0].empty() || !h.clamp[1].empty();
  std::string array = h.array->getName().str();
  if (clamps)
    out += "      const " + h.element + " *__kbcc_row = " + array + " + (long long)" +
           (h.clamp[1].empty() ? "__kbcc_r" : clamped(1, "__kbcc_r")) + " * (long long)" + h.stride + ";\n";
  else
    out += "      const " + h.element + " *__kbcc_row = " + array + " + (__kbcc_r * (long long)" + h.stride +
           " + __kbcc_bx + __kbcc_x0);\n";
  out += "      for (int __kbcc_tx = threadIdx.x; __kbcc_tx < __kbcc_fwi; __kbcc_tx += blockDim.x) {\n";
  out += "        __attribute__((unused)) const long long __kbcc_c = __kbcc_bx + __kbcc_x0 + __kbcc_tx;\n";
  std::string at = !clamps ? "__kbcc_tx" : h.clamp[0].empty() ? "__kbcc_c" : clamped(0, "__kbcc_c");
  out += "        if (" + need + ") __kbcc_tile[__kbcc_ty * __kbcc_fwi + __kbcc_tx] = __kbcc_row[" + at + "];\n";
  out += "      }\n    }\n    __syncthreads();\n  }\n";
  return out;
}

// Whether a `return` lies in [b, x) of the definition.
bool returns_in(const KernelAst &k, const Halo &h, size_t b, size_t x) {
  bool found = false;
  walk(h.index.space.body, [&](const Stmt *s) {
    size_t at = isa<ReturnStmt>(s) ? statement_begin(k, s) : std::string::npos;
    found = found || (at != std::string::npos && at >= b && at < x);
  });
  return found;
}

// Where read `i` of item `q` lies in the tile, as text: its column and row
// (tile coordinates, unsigned), each with its loop variable when it has one
// unless `without_loop` for that dimension.
std::string tile_coord(const Halo &h, const Items &items, size_t i, int d, const std::string &q,
                       bool without_loop = false) {
  const Coord &c = h.reads[i].at[d];
  std::string at = d == 0 ? (items.cols == 1 ? "threadIdx.x"
                                             : "threadIdx.x * " + std::to_string(items.cols) + "u + " + items.col(q)) +
                                " + __kbcc_ox" + std::to_string(i)
                          : "threadIdx.y + " + items.row(q) + " * blockDim.y + __kbcc_oy" + std::to_string(i);
  if (c.loop && !without_loop) at += (c.sign > 0 ? " + (unsigned)" : " - (unsigned)") + c.loop->getName().str();
  return at;
}

// The replacements of a staged copy: reads served from the tile (item
// `__kbcc_q`), or by `window` when given, the decided conditions' values
// when `decide`, and declarations in [b, x) marked unused (the reads and
// conditions may have been their only uses).
std::vector<Repl> served_repls(const KernelAst &k, const Halo &h, const Items &items, bool decide, size_t b, size_t x,
                               const std::string &window = "") {
  std::vector<Repl> repls;
  for (size_t i = 0; i < h.reads.size(); ++i) {
    size_t rb = 0, rx = 0;
    k.span(h.reads[i].read->getSourceRange(), rb, rx);
    repls.push_back({rb, rx,
                     !window.empty() ? window
                                     : "__kbcc_tile[(" + tile_coord(h, items, i, 1, "__kbcc_q") + ") * __kbcc_fwu + " +
                                           tile_coord(h, items, i, 0, "__kbcc_q") + "]"});
  }
  if (decide)
    for (const auto &[cond, d] : h.decided) {
      size_t cb = 0, cx = 0;
      span_of(k, cond, cb, cx);
      repls.push_back({cb, cx, d.holds ? "true" : "false"});
    }
  walk(h.index.space.body, [&](const Stmt *s) {
    const auto *cs = dyn_cast<CompoundStmt>(s);
    if (!cs) return;
    for (const Stmt *c : cs->body()) {
      size_t at = isa<DeclStmt>(c) ? statement_begin(k, c) : std::string::npos;
      if (at != std::string::npos && at >= b && at < x) repls.push_back({at, at, "__attribute__((unused)) "});
    }
  });
  return repls;
}

// [b, x) of the definition once per item (live items only unless `all_live`),
// `label` ending the item.
std::string items_text(const KernelAst &k, const Halo &h, const Items &items, size_t b, size_t x,
                       std::vector<Repl> repls, bool all_live, const std::string &label) {
  for (Repl &r : item_repls(k, h, items, label))
    repls.push_back(std::move(r));
  return per_item(items, std::string(all_live ? "" : "    if (!__kbcc_live[__kbcc_q]) continue;\n") + "    {\n" +
                             spliced(k.source(), b, x, disjoint(repls)) + "\n    }\n" +
                             (returns_in(k, h, b, x) ? "    " + label + ":;\n" : ""));
}

// The nest's innermost loop over t with a register window, for a thread
// with four columns: per row of items, the elements its columns read at a
// step are t's four consecutive elements of a tile row, and over four steps
// eight, which the thread loads with two 16-byte reads of the tile (the
// window's first element is 16-byte aligned: every read's column is x + t +
// c with one c, so the tile starts at the first step's column). `step(read,
// end)` is one step of every item, its reads served by `read` and its
// `continue` jumping to `end`.
std::string window_text(const Halo &h, const Items &items,
                        const std::function<std::string(const std::string &, const std::string &)> &step,
                        const std::string &label) {
  const VarDecl *t = h.reads.front().at[0].loop;
  const auto &[first, end] = h.bounds.at(t);
  const std::string R = std::to_string(items.rows), V = h.vector, T = type_text(t->getType(), t->getASTContext());
  auto unpack = [&](const std::string &from, int slot) { return unpack4(V, from, "__kbcc_v[__kbcc_wr]", slot); };
  auto rows = [&](const std::string &body) {
    return "      #pragma unroll\n      for (int __kbcc_wr = 0; __kbcc_wr < " + R + "; ++__kbcc_wr) " + body + "\n";
  };
  std::string read = "__kbcc_v[" + items.row("__kbcc_q") + "][" + items.col("__kbcc_q") + " + __kbcc_s]";
  auto steps = [&](const std::string &guard, const std::string &end_label) {
    return "      #pragma unroll\n      for (int __kbcc_s = 0; __kbcc_s < 4; ++__kbcc_s) " + guard +
           "{\n      __attribute__((unused)) const " + T + " " + t->getName().str() + " = (" + T +
           ")(__kbcc_t + __kbcc_s);\n" + per_item(items, step(read, end_label)) + "      }\n";
  };
  std::string loads = rows(unpack("__kbcc_sv[__kbcc_wr][__kbcc_g + 1]", 4));
  std::string out = "{\n    const long long __kbcc_wlo = (long long)" + first + ", __kbcc_whi = (long long)" + end +
                    ";\n    const " + V + " *__kbcc_sv[" + R + "];\n    " + h.element + " __kbcc_v[" + R + "][8];\n";
  out += rows("{\n        __kbcc_sv[__kbcc_wr] = reinterpret_cast<const " + V + " *>(__kbcc_tile + ((" +
              tile_coord(h, items, 0, 1, "__kbcc_wr * " + std::to_string(items.cols)) + ") * __kbcc_fwu + " +
              tile_coord(h, items, 0, 0, "0", true) + " + (unsigned)__kbcc_wlo));\n        " +
              unpack("__kbcc_sv[__kbcc_wr][0]", 0) + "\n      }");
  out += "    long long __kbcc_t = __kbcc_wlo;\n    unsigned __kbcc_g = 0;\n";
  out += "    for (; __kbcc_t + 4 <= __kbcc_whi; __kbcc_t += 4, ++__kbcc_g) {\n" + loads + steps("", label + "s");
  out += rows("{\n        #pragma unroll\n        for (int __kbcc_s = 0; __kbcc_s < 4; ++__kbcc_s) "
              "__kbcc_v[__kbcc_wr][__kbcc_s] = __kbcc_v[__kbcc_wr][__kbcc_s + 4];\n      }") +
         "    }\n";
  // The steps left over: one more group, its loads within the buffer's
  // slack past the footprint, its steps past the loop skipped.
  return out + "    if (__kbcc_t < __kbcc_whi) {\n" + loads +
         steps("if (__kbcc_t + __kbcc_s < __kbcc_whi) ", label + "r") + "    }\n  }";
}

// The statements after the nest when they are one store `P[E] = V;`
// (plain_store) whose four columns' elements one 16-byte (or 8-byte) store
// can write: that store. nullopt otherwise.
std::optional<PlainStore> group_store(const KernelAst &k, const Halo &h) {
  std::optional<PlainStore> store;
  walk(h.index.space.body, [&](const Stmt *s) {
    const auto *block = dyn_cast<CompoundStmt>(s);
    if (!block) return;
    const auto *at = std::find(block->body_begin(), block->body_end(), h.nest.front());
    if (at == block->body_end() || block->body_end() - at != 2) return;
    store = plain_store(at[1], k.context());
  });
  size_t b = 0, x = 0;
  if (!store || store_vector(static_cast<long>(k.context().getTypeSize(store->element) / 8) * 4).empty() ||
      !k.span(store->index->getSourceRange(), b, x) || !k.span(store->value->getSourceRange(), b, x))
    return std::nullopt;
  return store;
}

// The four columns' stores of each row of items, `store` with the reads
// `served` (items all live): one wide store of the four values where their
// indexes are consecutive and the first element's address is aligned to its
// size, each store in turn, in the items' order, otherwise.
std::string group_store_text(const KernelAst &k, const Halo &h, const Items &items, const PlainStore &store,
                             const std::vector<Repl> &served, const std::string &label) {
  const std::string &src = k.source(), p = store.array->getName().str();
  const long bytes = static_cast<long>(k.context().getTypeSize(store.element) / 8) * 4;
  const std::string vec = store_vector(bytes);
  size_t ib = 0, ix = 0, vb = 0, vx = 0;
  k.span(store.index->getSourceRange(), ib, ix);
  k.span(store.value->getSourceRange(), vb, vx);
  std::string at, wide, each, same;
  for (int j = 0; j < 4; ++j) {
    std::vector<Repl> repls = served;
    for (Repl &r : item_repls(k, h, items, label, "(__kbcc_wr * 4 + " + std::to_string(j) + ")"))
      repls.push_back(std::move(r));
    repls = disjoint(repls);
    const std::string a = "__kbcc_a" + std::to_string(j), value = spliced(src, vb, vx, repls);
    at += "    const auto " + a + " = " + spliced(src, ib, ix, repls) + ";\n";
    if (j > 0) same += a + " == __kbcc_a0 + " + std::to_string(j) + " && ";
    wide += "      __kbcc_o.__kbcc_one[" + std::to_string(j) + "] = " + value + ";\n";
    each += "      " + p + "[" + a + "] = " + value + ";\n";
  }
  return "  #pragma unroll\n  for (int __kbcc_wr = 0; __kbcc_wr < " + std::to_string(items.rows) +
         "; ++__kbcc_wr) {\n" + at + "    if (" + same + "((unsigned long long)(" + p + " + __kbcc_a0) & " +
         std::to_string(bytes - 1) + "ull) == 0) {\n      union { " + vec + " __kbcc_all; " +
         type_text(store.element, k.context()) + " __kbcc_one[4]; } __kbcc_o;\n" + wide + "      *reinterpret_cast<" +
         vec + " *>(" + p + " + __kbcc_a0) = __kbcc_o.__kbcc_all;\n    } else {\n" + each + "    }\n  }\n";
}

// One copy of the statements after staging ([b, x) of the definition): the
// original per live item (`fast` false), or with the reads served from the
// tile and, when `decide`, the decided conditions replaced by their values.
// With a nest, the staged copies run the items inside its innermost body, so
// what they share (loop counters, uniform loads) is computed once per step;
// with several columns per thread, its innermost loop keeps a register
// window. `label` names the copy's jump targets.
std::string main_text(const KernelAst &k, const Halo &h, const Items &items, size_t b, size_t x, bool fast, bool decide,
                      const std::string &label) {
  if (!fast) return items_text(k, h, items, b, x, {}, false, label);
  std::vector<Repl> served = served_repls(k, h, items, decide, b, x);
  if (h.nest.empty()) return items_text(k, h, items, b, x, served, true, label);
  const std::string &src = k.source();
  size_t nb = statement_begin(k, h.nest.front()), ne = statement_end(k, h.nest.front()), ib = 0, ie = 0;
  const Stmt *inner = h.nest.back()->getBody();
  k.span(inner->getSourceRange(), ib, ie);
  if (!isa<CompoundStmt>(inner)) ie = past_semicolon(src, ie);
  // The loop headers are shared: hoisted locals there (uniform) read item 0's.
  std::vector<Repl> header = served;
  for (Repl &r : item_repls(k, h, items, label, "0"))
    header.push_back(std::move(r));
  // One step of the innermost body for each item, a `continue` ending the
  // item's step at `end`.
  auto step = [&](const std::string &read, const std::string &end) {
    std::vector<Repl> body = read.empty() ? served : served_repls(k, h, items, decide, b, x, read);
    for (Repl &r : item_repls(k, h, items, label))
      body.push_back(std::move(r));
    bool continues = false;
    std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
      if (!s || isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s)) return;
      size_t cb = 0, cx = 0;
      if (isa<ContinueStmt>(s) && k.span(s->getSourceRange(), cb, cx)) {
        body.push_back({cb, past_semicolon(src, cx), "goto " + end + ";"});
        continues = true;
      }
      for (const Stmt *c : s->children())
        visit(c);
    };
    visit(inner);
    return spliced(src, ib, ie, disjoint(body)) + "\n" + (continues ? "    " + end + ":;\n" : "");
  };
  std::string nest =
      items.cols == 1
          ? spliced(src, nb, ib, disjoint(header)) + "{\n" + per_item(items, step("", label + "s")) + "  }"
          : spliced(src, nb, statement_begin(k, h.nest.back()), disjoint(header)) + window_text(h, items, step, label);
  std::optional<PlainStore> store = items.cols == 4 && items.wide ? group_store(k, h) : std::nullopt;
  return nest + spliced(src, ie, ne, disjoint(header)) + "\n" +
         (store ? group_store_text(k, h, items, *store, served, label)
                : items_text(k, h, items, ne, x, served, true, label));
}

// Why the nest's innermost loop cannot keep a register window of four
// columns per thread; empty when it can: the tile's elements are 4-byte
// scalars, and every served read sits right in the innermost body at column
// x + t + c (t that loop's variable), the same column and row as the others.
std::string window_refusal(const Halo &h) {
  if (h.nest.empty()) return "the reads are not all in the innermost body of a loop nest";
  if (h.vector.empty()) return "the staged elements are not 4-byte scalars";
  const HaloRead &r0 = h.reads.front();
  for (const HaloRead &r : h.reads) {
    if (r.loops.size() != h.nest.size()) return "a read lies in a loop inside the nest";
    const Coord &x = r.at[0], &y = r.at[1];
    if (x.loop != r.loops.back().var || x.sign != 1) return "a read's column does not step up with the innermost loop";
    if (x.c != r0.at[0].c || y.loop != r0.at[1].loop || y.sign != r0.at[1].sign || y.c != r0.at[1].c)
      return "the reads are at different offsets";
  }
  return "";
}

} // namespace

Expected<std::vector<Axis>> halo_space(const Input &in) {
  auto h = analyze(*in.ast);
  if (!h) return h.error();
  // With the register window, fewer rows per thread measured faster (a
  // thread already computes four columns per row).
  bool window = window_refusal(*h).empty();
  std::vector<Axis> axes{
      {"rows", window ? std::vector<std::string>{"2", "1", "4"} : std::vector<std::string>{"4", "2", "1"}},
      {"block", {"32x4", "32x8", "64x4", "16x16"}}};
  if (window) axes.insert(axes.begin(), Axis{"cols", {"4", "1"}});
  // Checking that the columns' indexes are consecutive costs registers,
  // which some kernels feel more than they gain from the wider store.
  if (window && group_store(*in.ast, *h)) axes.push_back(Axis{"stores", {"wide", "each"}});
  return axes;
}

Expected<Output> halo_apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto h = analyze(k);
  if (!h) return h.error();
  auto [bx, by] = shape_param(params, "block", "32x4");
  Items items{int_param(params, "rows", 4), int_param(params, "cols", 1)};
  auto stores = params.find("stores");
  items.wide = stores == params.end() || stores->second == "wide";
  if (stores != params.end() && stores->second != "wide" && stores->second != "each")
    return not_applicable("stores is not wide or each");
  if (bx < 1 || by < 1 || bx * by > 1024 || (bx * by) % 32 != 0) return not_applicable("block out of range");
  if (items.rows < 1 || items.rows > 8) return not_applicable("rows is not 1 to 8");
  if (items.cols != 1 && items.cols != 4) return not_applicable("cols is not 1 or 4");
  if (std::string why = window_refusal(*h); items.cols > 1 && !why.empty())
    return not_applicable("cols = 4 needs a register window: " + why);
  const CompoundStmt *body = h->index.space.body;
  bool in_macro = false;
  walk(body, [&](const Stmt *s) {
    if (isa<DeclRefExpr>(s) || isa<ReturnStmt>(s) || isa<IfStmt>(s) || isa<ArraySubscriptExpr>(s) || isa<DeclStmt>(s))
      in_macro = in_macro || !spans(k, s);
  });
  size_t cb = 0, cx = 0;
  for (const auto &[cond, d] : h->decided)
    in_macro = in_macro || !span_of(k, cond, cb, cx);
  if (h->wrapper) in_macro = in_macro || !span_of(k, h->wrapper->getCond(), cb, cx);
  for (const GlobalIndex &g : h->index.space.occurrences)
    in_macro = in_macro || !spans(k, g.expr);
  size_t open = k.offset(body->getLBracLoc()), close = k.offset(body->getRBracLoc());
  const Stmt *split = h->wrapper ? static_cast<const Stmt *>(h->wrapper) : h->first;
  size_t mb = split ? statement_begin(k, split) : std::string::npos;
  if (in_macro || open == std::string::npos || close == std::string::npos || mb == std::string::npos)
    return not_applicable("part of the body is written in a macro");
  // What runs after staging: from the first statement naming X to the end
  // of the body, or of the wrapper's block.
  size_t xb = statement_begin(k, h->first), xe = close;
  if (h->wrapper) xe = k.offset(cast<CompoundStmt>(h->wrapper->getThen())->getRBracLoc());
  if (xb == std::string::npos || xe == std::string::npos)
    return not_applicable("part of the body is written in a macro");
  long cap = items.cols == 1 ? (bx + 32) * (by * items.rows + 32) : (bx * items.cols + 32) * (by * items.rows + 16);
  std::string out = "\n" + prologue_text(k, *h, items, open + 1) + staging_text(k, *h, items, cap);
  out += "  const unsigned __kbcc_fwu = (unsigned)__kbcc_fw;\n";
  for (size_t i = 0; i < h->reads.size(); ++i)
    for (int d = 0; d < 2; ++d) {
      std::string a = d == 0 ? "x" : "y";
      out += "  __attribute__((unused)) const unsigned __kbcc_o" + a + std::to_string(i) + " = (unsigned)((long long)" +
             h->reads[i].at[d].c + " - __kbcc_" + a + "0);\n";
    }
  std::string decided = "true";
  for (const auto &[cond, d] : h->decided)
    for (const std::string &c : d.checks)
      decided += " && " + c;
  if (!h->decided.empty())
    out += "  if (__kbcc_fast && " + decided + ") {\n" + main_text(k, *h, items, xb, xe, true, true, "__kbcc_e2") +
           "  } else ";
  else
    out += "  ";
  out += "if (__kbcc_fast) {\n" + main_text(k, *h, items, xb, xe, true, false, "__kbcc_e1") + "  } else {\n" +
         main_text(k, *h, items, xb, xe, false, false, "__kbcc_e0") + "  }\n";
  Edits e;
  e.replace(open + 1, close, out);
  auto text = e.apply(k.source());
  if (!text) return text.error();
  Output o;
  o.source = *text;
  o.launch = tile_mapping(h->index.space, bx * items.cols, by * items.rows, bx, by);
  o.numerics = cache::kNumericsExact;
  o.size_params.assign(h->index.space.bound_params.begin(), h->index.space.bound_params.end());
  return o;
}

} // namespace kbcc::transform
