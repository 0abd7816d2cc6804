// shuffle_collectives: block-wide reductions and scans written as a loop with
// a barrier per step over a __shared__ array become warp-shuffle collectives
// with two or three barriers.
//
// Recognised loops, at the top level of the kernel's body, over a shared
// array `buf` and t = threadIdx.x (or a local initialised to it):
//   tree reduction:     for (s = I; C; step) { [if (G)] U(buf[A], buf[B]); __syncthreads(); }
//                       (or the barrier first, then the update; integer locals
//                       the step declares, such as `int index = 2 * s * t;`, may
//                       come before the update)
//   Hillis-Steele scan: for (s = I; C; step) { T v = G ? buf[B] : 0;   (or T v = 0; if (G) v = buf[B];)
//                                              __syncthreads(); [if (G2)] U(buf[A], v); __syncthreads(); }
// where U(x, y) is x op= y, x = x op y or x = f(x, y) with op one of + | ^ &
// or f a max/min function, and I, C, step, G, A, B are integer expressions of
// t, s, blockDim.x and constants (C and step without t).
//
// Legality is decided by running that index arithmetic for every power-of-two
// block of 32 to 1024 threads: no step may read a cell another thread writes
// in it, or leave [0, blockDim.x); a reduction must leave every element
// combined exactly once in buf[0], and the kernel may read only buf[0] until
// every thread overwrites its own cell; a scan must leave the inclusive
// prefix of element t in buf[t]. The rewrite keeps the loop for any other
// block shape, behind a block-uniform test.
//
// Block merging (`factor`): when a reduction's block result goes only to one
// global atomic of the same operation (`if (t == 0) atomicAdd(p, buf[0]);`
// ending the kernel, p independent of the block) and the elements come from
// one store `buf[t] = E` whose E sees the block only through the global index
// idiom, each thread combines its element of `factor` consecutive blocks
// before the block reduction. The grid shrinks by the factor, which must
// divide it (a launch precondition).
//
// Cells per thread (`items`, when blocks are not merged): the kernel runs
// with block.x / items threads, each of which runs `items` of the original
// threads between the barriers (transform/virtual_threads.h) and holds
// `items` cells in the collectives, so that several loads are in flight per
// thread. The original block must be a power of two of at least 32 * items
// threads (launch preconditions).
#include "cache/variant.h"
#include "transform/analysis.h"
#include "transform/edits.h"
#include "transform/index_space.h"
#include "transform/transform.h"
#include "transform/virtual_threads.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"

#include <algorithm>
#include <functional>
#include <map>

namespace kbcc::transform {
using namespace clang;

namespace {

// ---- Integer evaluation of index arithmetic -------------------------------

struct Frame {
  const ASTContext *ctx = nullptr;
  const std::set<const VarDecl *> *tvars = nullptr;              // locals holding threadIdx.x
  const VarDecl *s = nullptr;                                    // the loop variable
  bool has_t = false;                                            // t may be read
  bool has_s = false;                                            // s may be read
  const std::map<const VarDecl *, const Expr *> *lets = nullptr; // step locals and their values
  int64_t t = 0, block = 0, sv = 0;
};

using Value = std::optional<int64_t>;

// `v` converted to integer type `q` (C++ conversion rules); nullopt for other types.
Value wrap(int64_t v, QualType q, const ASTContext &ctx) {
  q = q.getCanonicalType();
  if (q->isBooleanType()) return v != 0 ? 1 : 0;
  if (!q->isIntegerType()) return std::nullopt;
  uint64_t width = ctx.getTypeSize(q);
  bool is_unsigned = q->isUnsignedIntegerType();
  if (width >= 64) return is_unsigned && v < 0 ? std::nullopt : Value(v);
  uint64_t mask = (uint64_t{1} << width) - 1, u = static_cast<uint64_t>(v) & mask;
  if (!is_unsigned && (u >> (width - 1)) != 0) u |= ~mask;
  return static_cast<int64_t>(u);
}

Value eval(const Expr *e, const Frame &f);

Value binary(BinaryOperatorKind op, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (op) {
  case BO_Add:
  case BO_AddAssign:
    return __builtin_add_overflow(a, b, &r) ? std::nullopt : Value(r);
  case BO_Sub:
  case BO_SubAssign:
    return __builtin_sub_overflow(a, b, &r) ? std::nullopt : Value(r);
  case BO_Mul:
  case BO_MulAssign:
    return __builtin_mul_overflow(a, b, &r) ? std::nullopt : Value(r);
  case BO_Div:
  case BO_DivAssign:
    return b == 0 ? std::nullopt : Value(a / b);
  case BO_Rem:
  case BO_RemAssign:
    return b == 0 ? std::nullopt : Value(a % b);
  case BO_Shl:
  case BO_ShlAssign:
    return b < 0 || b > 62 || a < 0 ? std::nullopt : Value(a << b);
  case BO_Shr:
  case BO_ShrAssign:
    return b < 0 || b > 63 ? std::nullopt : Value(a >> b);
  case BO_And:
  case BO_AndAssign:
    return a & b;
  case BO_Or:
  case BO_OrAssign:
    return a | b;
  case BO_Xor:
  case BO_XorAssign:
    return a ^ b;
  case BO_LT:
    return a < b;
  case BO_GT:
    return a > b;
  case BO_LE:
    return a <= b;
  case BO_GE:
    return a >= b;
  case BO_EQ:
    return a == b;
  case BO_NE:
    return a != b;
  default:
    return std::nullopt;
  }
}

Value eval_ref(const DeclRefExpr *ref, const Frame &f) {
  const auto *var = dyn_cast<VarDecl>(ref->getDecl());
  if (var && f.tvars->count(var)) return f.has_t ? Value(f.t) : std::nullopt;
  if (var && var == f.s) return f.has_s ? Value(f.sv) : std::nullopt;
  if (var && f.lets) {
    auto it = f.lets->find(var);
    if (it != f.lets->end()) return eval(it->second, f);
  }
  return std::nullopt;
}

Value eval_cast(const CastExpr *c, const Frame &f) {
  switch (c->getCastKind()) {
  case CK_LValueToRValue:
  case CK_NoOp:
  case CK_IntegralCast:
  case CK_IntegralToBoolean: {
    Value v = eval(c->getSubExpr(), f);
    return v ? wrap(*v, c->getType(), *f.ctx) : std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

Value eval_binary(const BinaryOperator *b, const Frame &f) {
  Value l = eval(b->getLHS(), f);
  if (!l) return std::nullopt;
  if (b->getOpcode() == BO_LAnd && *l == 0) return 0;
  if (b->getOpcode() == BO_LOr && *l != 0) return 1;
  Value r = eval(b->getRHS(), f);
  if (!r) return std::nullopt;
  if (b->getOpcode() == BO_LAnd || b->getOpcode() == BO_LOr) return *r != 0 ? 1 : 0;
  Value v = binary(b->getOpcode(), *l, *r);
  return v ? wrap(*v, b->getType(), *f.ctx) : std::nullopt;
}

// The value of `e` when it is integer arithmetic of t, s, blockDim.x and
// constants that `f` knows; nullopt otherwise.
Value eval(const Expr *e, const Frame &f) {
  if (!e) return std::nullopt;
  if (isa<PseudoObjectExpr>(e) || isa<MSPropertyRefExpr>(e)) {
    auto b = as_builtin(e);
    if (!b || b->dim != 0) return std::nullopt;
    if (b->var == Builtin::ThreadIdx) return f.has_t ? Value(f.t) : std::nullopt;
    if (b->var == Builtin::BlockDim) return f.block;
    return std::nullopt;
  }
  if (const auto *p = dyn_cast<ParenExpr>(e)) return eval(p->getSubExpr(), f);
  if (const auto *c = dyn_cast<CastExpr>(e)) return eval_cast(c, f);
  if (const auto *ref = dyn_cast<DeclRefExpr>(e))
    if (Value v = eval_ref(ref, f)) return v;
  if (const auto *b = dyn_cast<BinaryOperator>(e); b && !b->isAssignmentOp()) return eval_binary(b, f);
  if (const auto *u = dyn_cast<UnaryOperator>(e)) {
    Value v = eval(u->getSubExpr(), f);
    if (!v) return std::nullopt;
    switch (u->getOpcode()) {
    case UO_Plus:
      return wrap(*v, u->getType(), *f.ctx);
    case UO_Minus:
      return wrap(-*v, u->getType(), *f.ctx);
    case UO_Not:
      return wrap(~*v, u->getType(), *f.ctx);
    case UO_LNot:
      return *v == 0 ? 1 : 0;
    default:
      return std::nullopt;
    }
  }
  if (const auto *c = dyn_cast<ConditionalOperator>(e)) {
    Value cond = eval(c->getCond(), f);
    return cond ? eval(*cond ? c->getTrueExpr() : c->getFalseExpr(), f) : std::nullopt;
  }
  Expr::EvalResult r; // a constant expression (literals, constexpr, enumerators)
  if (!e->isValueDependent() && e->EvaluateAsInt(r, *f.ctx)) return r.Val.getInt().getExtValue();
  return std::nullopt;
}

// ---- The loop --------------------------------------------------------------

struct Head {
  const VarDecl *s = nullptr;
  const Expr *cond = nullptr, *inc = nullptr;
};

std::optional<Head> head_of(const ForStmt *loop) {
  const auto *d = dyn_cast_or_null<DeclStmt>(loop->getInit());
  if (!d || !d->isSingleDecl() || !loop->getCond() || !loop->getInc()) return std::nullopt;
  const auto *s = dyn_cast<VarDecl>(d->getSingleDecl());
  if (!s || !s->getInit() || !s->getType()->isIntegerType() || assigns(loop->getBody(), s)) return std::nullopt;
  return Head{s, loop->getCond(), loop->getInc()};
}

bool names(const Expr *e, const VarDecl *v) {
  const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  return ref && ref->getDecl() == v;
}

// The loop variable after `inc` runs.
Value advance(const Expr *inc, const Frame &f) {
  inc = inc->IgnoreParens();
  if (const auto *u = dyn_cast<UnaryOperator>(inc); u && u->isIncrementDecrementOp() && names(u->getSubExpr(), f.s))
    return wrap(f.sv + (u->isIncrementOp() ? 1 : -1), f.s->getType(), *f.ctx);
  if (const auto *b = dyn_cast<BinaryOperator>(inc); b && b->isAssignmentOp() && names(b->getLHS(), f.s)) {
    Value r = eval(b->getRHS(), f);
    if (!r) return std::nullopt;
    Value v = b->getOpcode() == BO_Assign ? r : binary(b->getOpcode(), f.sv, *r);
    return v ? wrap(*v, f.s->getType(), *f.ctx) : std::nullopt;
  }
  return std::nullopt;
}

// Runs `step` for each value of the loop variable with `block` threads; why
// it cannot ("" when it ran to the end).
std::string run_loop(const Head &h, Frame f, const std::function<std::string(const Frame &)> &step) {
  f.has_t = false;
  Value v = eval(h.s->getInit(), f);
  if (!v || !(v = wrap(*v, h.s->getType(), *f.ctx))) return "its start is not integer arithmetic of blockDim.x";
  for (int iteration = 0;; ++iteration) {
    if (iteration > 64) return "it does not end within 64 steps";
    f.sv = *v;
    f.has_s = true;
    Value more = eval(h.cond, f);
    if (!more) return "its condition is not integer arithmetic of the loop variable and blockDim.x";
    if (*more == 0) return {};
    if (std::string why = step(f); !why.empty()) return why;
    v = advance(h.inc, f);
    if (!v) return "its step is not integer arithmetic of the loop variable";
  }
}

// ---- Matching the loop's statements ---------------------------------------

const VarDecl *shared_array(const Expr *base) {
  const auto *ref = dyn_cast<DeclRefExpr>(base->IgnoreParenImpCasts());
  const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  return var && var->hasAttr<CUDASharedAttr>() && var->getType()->isArrayType() ? var : nullptr;
}

// The index of `e` when it is buf[index] of `buf` (any shared array when buf is null).
const Expr *cell(const Expr *e, const VarDecl *&buf) {
  const auto *sub = dyn_cast<ArraySubscriptExpr>(e->IgnoreParenImpCasts());
  if (!sub) return nullptr;
  const VarDecl *array = shared_array(sub->getBase());
  if (!array || (buf && array != buf)) return nullptr;
  buf = array;
  return sub->getIdx();
}

std::vector<const Stmt *> statements(const Stmt *s) {
  if (const auto *c = dyn_cast_or_null<CompoundStmt>(s)) return {c->body_begin(), c->body_end()};
  return {s};
}

const Stmt *single(const Stmt *s) {
  auto list = statements(s);
  return list.size() == 1 ? list.front() : nullptr;
}

bool is_minmax(const std::string &fn) {
  static const char *const known[] = {"max", "min", "fmaxf", "fminf", "fmax", "fmin", "umax", "umin", "llmax", "llmin"};
  return std::find(std::begin(known), std::end(known), fn) != std::end(known);
}

// x op= y, x = x op y, x = y op x, x = f(x, y), x = f(y, x) with x = buf[A].
struct Update {
  const Expr *a = nullptr;     // the updated cell's index
  const Expr *other = nullptr; // y
  Accumulation acc;
};

std::optional<Update> match_update(const Stmt *s, const VarDecl *&buf, const ASTContext &ctx) {
  const auto *b = dyn_cast_or_null<BinaryOperator>(s);
  if (!b || !b->isAssignmentOp()) return std::nullopt;
  Update u;
  if (!(u.a = cell(b->getLHS(), buf))) return std::nullopt;
  static const std::pair<BinaryOperatorKind, Accumulation::Kind> ops[] = {
      {BO_Add, Accumulation::Sum}, {BO_Or, Accumulation::Or}, {BO_Xor, Accumulation::Xor}, {BO_And, Accumulation::And}};
  if (const auto *c = dyn_cast<CompoundAssignOperator>(b)) {
    for (const auto &[op, kind] : ops)
      if (BinaryOperator::getOpForCompoundAssignment(c->getOpcode()) == op) {
        u.acc.kind = kind;
        u.other = c->getRHS();
        return u;
      }
    return std::nullopt;
  }
  if (b->getOpcode() != BO_Assign) return std::nullopt;
  auto self = [&](const Expr *x) {
    return same_expr(x->IgnoreParenImpCasts(), b->getLHS()->IgnoreParenImpCasts(), ctx);
  };
  const Expr *rhs = b->getRHS()->IgnoreParenImpCasts();
  if (const auto *r = dyn_cast<BinaryOperator>(rhs))
    for (const auto &[op, kind] : ops)
      if (r->getOpcode() == op && (self(r->getLHS()) || self(r->getRHS()))) {
        u.acc.kind = kind;
        u.other = self(r->getLHS()) ? r->getRHS() : r->getLHS();
        return u;
      }
  if (const auto *call = dyn_cast<CallExpr>(rhs); call && call->getNumArgs() == 2) {
    const FunctionDecl *fd = call->getDirectCallee();
    if (!fd || !fd->getIdentifier() || !is_minmax(fd->getName().str())) return std::nullopt;
    if (!self(call->getArg(0)) && !self(call->getArg(1))) return std::nullopt;
    u.acc.kind = Accumulation::MaxMin;
    u.acc.combine = fd->getName().str();
    u.other = self(call->getArg(0)) ? call->getArg(1) : call->getArg(0);
    return u;
  }
  return std::nullopt;
}

bool is_zero_literal(const Expr *e) {
  e = e->IgnoreParenCasts();
  if (const auto *i = dyn_cast<IntegerLiteral>(e)) return i->getValue().isZero();
  if (const auto *fl = dyn_cast<FloatingLiteral>(e)) return fl->getValue().isZero();
  return false;
}

struct Collective {
  enum Kind { Reduce, Scan } kind = Reduce;
  const Stmt *top = nullptr; // the statement in the body: the loop, or its #pragma
  const ForStmt *loop = nullptr;
  Head head;
  const VarDecl *buf = nullptr;
  Accumulation acc;
  const Expr *guard = nullptr, *a = nullptr, *b = nullptr; // reduce: [if (guard)] buf[a] op= buf[b]
  const Expr *guard2 = nullptr;                            // scan: v = guard ? buf[b] : 0; [if (guard2)] buf[a] op= v
  std::map<const VarDecl *, const Expr *> lets; // reduce: integer locals each step declares, and their values
};

// The loop's statements as a tree reduction; why not. The barrier may come
// first in each step, as in `for (...) { __syncthreads(); if (t < s) ... }`:
// the steps are the same, and the rewrite's own barriers order what comes
// before the loop with what comes after it as the loop's barriers did.
std::string match_reduce(const std::vector<const Stmt *> &all, Collective &c, const ASTContext &ctx) {
  // Integer locals the step declares and never assigns (`int index = 2 * s *
  // t;`) are index arithmetic: the simulation reads them through their values.
  std::vector<const Stmt *> body;
  for (const Stmt *st : all) {
    const auto *d = dyn_cast<DeclStmt>(st);
    const auto *v = d && d->isSingleDecl() ? dyn_cast<VarDecl>(d->getSingleDecl()) : nullptr;
    if (v && v->getType()->isIntegerType() && v->getInit() && !refers_to(v->getInit(), v) &&
        !assigns(c.loop->getBody(), v))
      c.lets[v] = v->getInit();
    else if (!isa<NullStmt>(st))
      body.push_back(st);
  }
  if (body.size() != 2 || is_syncthreads(body[0]) == is_syncthreads(body[1]))
    return "its body is not an update and __syncthreads(), in either order";
  const Stmt *update = is_syncthreads(body[0]) ? body[1] : body[0];
  if (const auto *i = dyn_cast<IfStmt>(update)) {
    if (i->getElse() || i->getInit() || i->getConditionVariable())
      return "its guard has an else branch or a declaration";
    c.guard = i->getCond();
    update = single(i->getThen());
  }
  auto u = match_update(update, c.buf, ctx);
  if (!u) return "its update is not buf[a] op= buf[b] (op + | ^ & or a max/min function)";
  c.a = u->a;
  c.acc = u->acc;
  if (!(c.b = cell(u->other, c.buf))) return "its update does not combine two cells of one shared array";
  c.kind = Collective::Reduce;
  return {};
}

// v = guard ? buf[b] : 0 as a declaration (or `T v = 0; if (guard) v = buf[b];`), then a barrier,
// then [if (guard2)] buf[a] op= v and a barrier.
std::string match_scan(const std::vector<const Stmt *> &body, Collective &c, const ASTContext &ctx) {
  const char *shape = "its body is not a read of buf[b] into a local, __syncthreads(), buf[a] op= that local, "
                      "__syncthreads()";
  if ((body.size() != 4 && body.size() != 5) || !is_syncthreads(body[body.size() - 1]) ||
      !is_syncthreads(body[body.size() - 3]))
    return shape;
  const auto *d = dyn_cast<DeclStmt>(body[0]);
  const VarDecl *v = d && d->isSingleDecl() ? dyn_cast<VarDecl>(d->getSingleDecl()) : nullptr;
  if (!v || !v->getInit()) return shape;
  const Expr *read = nullptr;
  if (body.size() == 4) {
    const auto *sel = dyn_cast<ConditionalOperator>(v->getInit()->IgnoreParenImpCasts());
    if (!sel || !is_zero_literal(sel->getFalseExpr())) return shape;
    c.guard = sel->getCond();
    read = sel->getTrueExpr();
  } else {
    const auto *i = dyn_cast<IfStmt>(body[1]);
    const auto *assign = i && !i->getElse() ? dyn_cast_or_null<BinaryOperator>(single(i->getThen())) : nullptr;
    if (!is_zero_literal(v->getInit()) || !assign || assign->getOpcode() != BO_Assign || !names(assign->getLHS(), v))
      return shape;
    c.guard = i->getCond();
    read = assign->getRHS();
  }
  if (!(c.b = cell(read, c.buf))) return shape;
  const Stmt *update = body[body.size() - 2];
  if (const auto *i = dyn_cast<IfStmt>(update)) {
    if (i->getElse() || i->getInit() || i->getConditionVariable()) return shape;
    c.guard2 = i->getCond();
    update = single(i->getThen());
  }
  auto u = match_update(update, c.buf, ctx);
  if (!u || !names(u->other, v)) return shape;
  if (u->acc.kind == Accumulation::MaxMin || u->acc.kind == Accumulation::And)
    return "its operation has no zero identity (only + | ^ scans are rewritten)";
  c.a = u->a;
  c.acc = u->acc;
  c.kind = Collective::Scan;
  return {};
}

// ---- Simulation ------------------------------------------------------------

using Cells = std::vector<std::vector<int>>; // the elements combined into each cell

bool index_in(const Expr *e, const Frame &f, int64_t &out) {
  Value v = eval(e, f);
  if (!v || *v < 0 || *v >= f.block) return false;
  out = *v;
  return true;
}

// Whether thread f.t takes part: the guard holds (none: always); nullopt when it cannot be evaluated.
std::optional<bool> active(const Expr *guard, const Frame &f) {
  if (!guard) return true;
  Value v = eval(guard, f);
  return v ? std::optional<bool>(*v != 0) : std::nullopt;
}

std::string reduce_step(const Collective &c, const Frame &at, Cells &cells) {
  Frame f = at;
  f.has_t = true;
  std::vector<int> writer(f.block, -1), reader(f.block, -1);
  Cells next = cells;
  for (f.t = 0; f.t < f.block; ++f.t) {
    auto on = active(c.guard, f);
    if (!on) return "its guard is not integer arithmetic of t, the loop variable and blockDim.x";
    if (!*on) continue;
    int64_t a = 0, b = 0;
    if (!index_in(c.a, f, a) || !index_in(c.b, f, b)) return "a step reaches outside [0, blockDim.x)";
    if (writer[a] != -1) return "two threads update one cell in a step";
    writer[a] = static_cast<int>(f.t);
    reader[b] = reader[b] == -1 || reader[b] == f.t ? static_cast<int>(f.t) : -2;
    next[a].insert(next[a].end(), cells[b].begin(), cells[b].end());
  }
  for (int64_t x = 0; x < f.block; ++x)
    if (writer[x] >= 0 && reader[x] != -1 && reader[x] != writer[x])
      return "a step reads a cell another thread updates";
  cells = std::move(next);
  return {};
}

std::string scan_step(const Collective &c, const Frame &at, Cells &cells) {
  Frame f = at;
  f.has_t = true;
  Cells read(f.block), next = cells;
  for (f.t = 0; f.t < f.block; ++f.t) {
    auto on = active(c.guard, f);
    if (!on) return "its guard is not integer arithmetic of t, the loop variable and blockDim.x";
    int64_t b = 0;
    if (*on && !index_in(c.b, f, b)) return "a step reads outside [0, blockDim.x)";
    if (*on) read[f.t] = cells[b];
  }
  std::vector<bool> written(f.block, false);
  for (f.t = 0; f.t < f.block; ++f.t) {
    auto on = active(c.guard2, f);
    if (!on) return "its guard is not integer arithmetic of t, the loop variable and blockDim.x";
    if (!*on) continue;
    int64_t a = 0;
    if (!index_in(c.a, f, a)) return "a step writes outside [0, blockDim.x)";
    if (written[a]) return "two threads update one cell in a step";
    written[a] = true;
    next[a].insert(next[a].end(), read[f.t].begin(), read[f.t].end());
  }
  cells = std::move(next);
  return {};
}

// Runs the collective with `block` threads; why it is not a reduction into
// buf[0] (or an inclusive scan) of every element ("" when it is).
std::string simulate(const Collective &c, Frame f) {
  Cells cells(f.block);
  for (int64_t i = 0; i < f.block; ++i)
    cells[i] = {static_cast<int>(i)};
  std::string why = run_loop(c.head, f, [&](const Frame &at) {
    return c.kind == Collective::Reduce ? reduce_step(c, at, cells) : scan_step(c, at, cells);
  });
  if (!why.empty()) return why;
  for (int64_t x = 0; x < (c.kind == Collective::Reduce ? 1 : f.block); ++x) {
    std::vector<int> got = cells[x];
    std::sort(got.begin(), got.end());
    int64_t want = c.kind == Collective::Reduce ? f.block : x + 1;
    bool exact = static_cast<int64_t>(got.size()) == want;
    for (int64_t i = 0; exact && i < want; ++i)
      exact = got[i] == i;
    if (!exact)
      return c.kind == Collective::Reduce ? "it does not combine every element exactly once into buf[0]"
                                          : "it does not leave the inclusive prefix of element t in buf[t]";
  }
  return {};
}

// ---- The kernel ------------------------------------------------------------

// Locals initialised to threadIdx.x and never assigned.
std::set<const VarDecl *> thread_vars(const Stmt *body) {
  std::set<const VarDecl *> out;
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s) return;
    if (const auto *d = dyn_cast<DeclStmt>(s))
      for (const Decl *x : d->decls())
        if (const auto *v = dyn_cast<VarDecl>(x); v && v->getInit() && v->getType()->isIntegerType())
          if (auto b = as_builtin(v->getInit()); b && b->var == Builtin::ThreadIdx && b->dim == 0 && !assigns(body, v))
            out.insert(v);
    for (const Stmt *c : s->children())
      visit(c);
  };
  visit(body);
  return out;
}

// Whether `e` evaluates to t for every thread (a thread's own cell).
bool is_own_cell(const Expr *e, Frame f) {
  f.has_t = true;
  f.has_s = false;
  f.block = 1024;
  for (int64_t t : {0, 1, 31, 32, 1023}) {
    f.t = t;
    if (eval(e, f) != Value(t)) return false;
  }
  return true;
}

// Whether `s` assigns every thread's own cell of `buf`: buf[t] = ...;
bool overwrites_own_cell(const Stmt *s, const VarDecl *buf, const Frame &f) {
  const auto *b = dyn_cast<BinaryOperator>(s);
  const VarDecl *array = buf;
  const Expr *index = b && b->getOpcode() == BO_Assign ? cell(b->getLHS(), array) : nullptr;
  return index && is_own_cell(index, f);
}

// References of `buf` under `s` that are not buf[0]; the left side of `skip` excepted.
int other_references(const Stmt *s, const VarDecl *buf, const Expr *skip) {
  int refs = references(s, buf), zero = 0;
  std::function<void(const Stmt *)> visit = [&](const Stmt *x) {
    if (!x) return;
    if (const auto *sub = dyn_cast<ArraySubscriptExpr>(x)) {
      Expr::EvalResult r;
      if (shared_array(sub->getBase()) == buf &&
          (sub == skip || (sub->getIdx()->EvaluateAsInt(r, buf->getASTContext()) && r.Val.getInt().isZero())))
        ++zero;
    }
    for (const Stmt *c : x->children())
      visit(c);
  };
  visit(s);
  return refs - zero;
}

// Why a reduction's other cells might be read after it ("" when only buf[0] is,
// until every thread overwrites its own cell).
std::string reads_after(const std::vector<const Stmt *> &rest, const VarDecl *buf, const Frame &f) {
  for (const Stmt *s : rest) {
    if (overwrites_own_cell(s, buf, f)) {
      const auto *assign = cast<BinaryOperator>(s);
      return other_references(s, buf, cast<ArraySubscriptExpr>(assign->getLHS()->IgnoreParenImpCasts())) == 0
                 ? ""
                 : "after it the kernel reads buf at an index other than 0";
    }
    if (other_references(s, buf, nullptr) > 0) return "after it the kernel reads buf at an index other than 0";
  }
  return {};
}

bool supported_element(QualType t) {
  t = t.getCanonicalType().getUnqualifiedType();
  for (auto k : {BuiltinType::Int, BuiltinType::UInt, BuiltinType::LongLong, BuiltinType::ULongLong, BuiltinType::Float,
                 BuiltinType::Double})
    if (t->isSpecificBuiltinType(k)) return true;
  return false;
}

// The loop of a top-level statement (through a #pragma).
const ForStmt *loop_of(const Stmt *s) {
  if (const auto *a = dyn_cast<AttributedStmt>(s)) s = a->getSubStmt();
  return dyn_cast<ForStmt>(s);
}

bool has_barrier(const Stmt *s) {
  if (!s) return false;
  if (is_syncthreads(s)) return true;
  for (const Stmt *c : s->children())
    if (has_barrier(c)) return true;
  return false;
}

// The collective at body[i]; why it is not one.
std::string match_collective(const std::vector<const Stmt *> &body, size_t i, const Frame &frame, const ASTContext &ctx,
                             Collective &c) {
  c.top = body[i];
  c.loop = loop_of(body[i]);
  auto head = head_of(c.loop);
  if (!head) return "its loop does not declare an integer variable it alone steps";
  c.head = *head;
  auto list = statements(c.loop->getBody());
  std::string why_reduce = match_reduce(list, c, ctx);
  if (!why_reduce.empty()) {
    const ForStmt *loop = c.loop;
    c = Collective{};
    c.top = body[i];
    c.loop = loop;
    c.head = *head;
    if (std::string why_scan = match_scan(list, c, ctx); !why_scan.empty())
      return std::count_if(list.begin(), list.end(), is_syncthreads) == 1 ? why_reduce : why_scan;
  }
  if (!supported_element(c.buf->getType()->getAsArrayTypeUnsafe()->getElementType()))
    return "the shared array's element type has no shuffle (int, unsigned, long long, float, double)";
  Frame f = frame;
  f.s = c.head.s;
  f.lets = &c.lets;
  for (int64_t block = 32; block <= 1024; block *= 2) {
    f.block = block;
    if (std::string why = simulate(c, f); !why.empty()) return why + " (" + std::to_string(block) + " threads)";
  }
  if (c.kind == Collective::Reduce)
    return reads_after(std::vector<const Stmt *>(body.begin() + static_cast<long>(i) + 1, body.end()), c.buf, frame);
  return {};
}

// ---- Block merging ---------------------------------------------------------

struct Merge {
  const Stmt *first = nullptr;               // first statement that moves into the per-block loop
  const BinaryOperator *store = nullptr;     // buf[t] = E
  std::vector<const VarDecl *> index_vars;   // locals holding the global index, declared before `first`
  std::vector<const DeclStmt *> index_decls; // their declarations (marked unused: shadowed per block)
  std::vector<const Expr *> inline_indexes;  // the idiom written out in the moved statements
  std::set<std::string> size_params;         // integer parameters E reads
};

const char *atomic_for(const Accumulation &a) {
  switch (a.kind) {
  case Accumulation::Sum:
    return "atomicAdd";
  case Accumulation::Or:
    return "atomicOr";
  case Accumulation::Xor:
    return "atomicXor";
  case Accumulation::And:
    return "atomicAnd";
  case Accumulation::MaxMin:
    return a.combine.find("max") != std::string::npos ? "atomicMax" : "atomicMin";
  }
  return "";
}

// blockIdx.x * blockDim.x + threadIdx.x (or + a thread variable).
bool is_global_index(const Expr *e, const std::set<const VarDecl *> &tvars) {
  if (auto g = as_global_index(e)) return g->dim == 0;
  const auto *add = dyn_cast<BinaryOperator>(e->IgnoreParenCasts());
  if (!add || add->getOpcode() != BO_Add) return false;
  for (int side = 0; side < 2; ++side) {
    const Expr *t = side ? add->getLHS() : add->getRHS();
    const auto *ref = dyn_cast<DeclRefExpr>(t->IgnoreParenCasts());
    const auto *mul = dyn_cast<BinaryOperator>((side ? add->getRHS() : add->getLHS())->IgnoreParenCasts());
    if (!ref || !tvars.count(dyn_cast<VarDecl>(ref->getDecl())) || !mul || mul->getOpcode() != BO_Mul) continue;
    auto a = as_builtin(mul->getLHS()), b = as_builtin(mul->getRHS());
    if (a && b && a->dim == 0 && b->dim == 0 &&
        ((a->var == Builtin::BlockIdx && b->var == Builtin::BlockDim) ||
         (a->var == Builtin::BlockDim && b->var == Builtin::BlockIdx)))
      return true;
  }
  return false;
}

// Builtin reads of blockIdx or gridDim under `s` outside the global-index idiom;
// the idiom's occurrences go to `idioms`.
int block_reads(const Stmt *s, const std::set<const VarDecl *> &tvars, std::vector<const Expr *> &idioms) {
  if (!s) return 0;
  if (const auto *e = dyn_cast<Expr>(s); e && is_global_index(e, tvars)) {
    idioms.push_back(e);
    return 0;
  }
  if (isa<PseudoObjectExpr>(s)) {
    auto b = as_builtin(cast<Expr>(s));
    return b && (b->var == Builtin::BlockIdx || b->var == Builtin::GridDim) ? 1 : 0;
  }
  int n = 0;
  for (const Stmt *c : s->children())
    n += block_reads(c, tvars, idioms);
  return n;
}

// `if (t == 0) atomicOp(p, buf[0]);` with p independent of the block.
bool is_block_result_atomic(const Stmt *s, const Collective &c, const Frame &frame) {
  const auto *i = dyn_cast<IfStmt>(s);
  if (!i || i->getElse() || i->getInit() || i->getConditionVariable()) return false;
  Frame f = frame;
  f.has_s = false;
  f.block = 1024;
  f.has_t = true;
  for (int64_t t : {0, 1, 5, 32, 1023}) {
    f.t = t;
    if (eval(i->getCond(), f) != Value(t == 0 ? 1 : 0)) return false;
  }
  const auto *call = dyn_cast_or_null<CallExpr>(single(i->getThen()));
  const FunctionDecl *fd = call ? call->getDirectCallee() : nullptr;
  if (!fd || !fd->getIdentifier() || fd->getName() != atomic_for(c.acc) || call->getNumArgs() != 2) return false;
  const VarDecl *buf = c.buf;
  const Expr *index = cell(call->getArg(1), buf);
  Expr::EvalResult r;
  if (!index || !index->EvaluateAsInt(r, buf->getASTContext()) || !r.Val.getInt().isZero()) return false;
  std::vector<const Expr *> idioms;
  return block_reads(call->getArg(0), *f.tvars, idioms) == 0 && idioms.empty();
}

// Whether the reduction at body[at] may merge blocks; the plan when it may.
std::optional<Merge> mergeable(const Stmt *kernel_body, const std::vector<const Stmt *> &body, size_t at,
                               const Collective &c, const Frame &frame) {
  if (c.kind != Collective::Reduce || at < 2 || at + 2 != body.size()) return std::nullopt;
  if (!is_block_result_atomic(body[at + 1], c, frame) || !is_syncthreads(body[at - 1])) return std::nullopt;
  Merge m;
  m.store = dyn_cast<BinaryOperator>(body[at - 2]);
  if (!m.store || !overwrites_own_cell(m.store, c.buf, frame)) return std::nullopt;
  const Expr *value = m.store->getRHS();
  if (writes_memory(value) || refers_to(value, c.buf) || has_barrier(value)) return std::nullopt;
  // Declarations before the store: thread and index variables, then the moved ones.
  size_t first = at - 2;
  for (size_t i = 0; i + 2 < at; ++i) {
    const auto *d = dyn_cast<DeclStmt>(body[i]);
    if (!d) return std::nullopt;
    for (const Decl *x : d->decls()) {
      const auto *v = dyn_cast<VarDecl>(x);
      if (v && v->hasAttr<CUDASharedAttr>() && first == at - 2) continue;
      if (!v || !v->getInit() || writes_memory(v->getInit())) return std::nullopt;
      bool is_index =
          v->getType()->isIntegerType() && is_global_index(v->getInit(), *frame.tvars) && !assigns(kernel_body, v);
      if (first == at - 2 && (is_index || frame.tvars->count(v))) {
        if (is_index) m.index_vars.push_back(v);
        continue;
      }
      if (first == at - 2) first = i;
    }
  }
  m.first = body[first];
  // An index variable declared in a moved statement moves with it (its idiom is rewritten there).
  for (size_t i = 0; i < first; ++i)
    for (const Decl *x : cast<DeclStmt>(body[i])->decls())
      if (std::find(m.index_vars.begin(), m.index_vars.end(), x) != m.index_vars.end()) {
        if (m.index_decls.empty() || m.index_decls.back() != body[i]) m.index_decls.push_back(cast<DeclStmt>(body[i]));
      }
  std::erase_if(m.index_vars, [&](const VarDecl *v) {
    return std::none_of(m.index_decls.begin(), m.index_decls.end(), [&](const DeclStmt *d) {
      return std::find(d->decl_begin(), d->decl_end(), v) != d->decl_end();
    });
  });
  // Nothing after the store may see the moved declarations or the block.
  std::vector<const Expr *> idioms;
  for (size_t i = at - 1; i < body.size(); ++i) {
    if (block_reads(body[i], *frame.tvars, idioms) != 0 || !idioms.empty()) return std::nullopt;
    for (size_t j = first; j + 2 < at; ++j)
      for (const Decl *x : cast<DeclStmt>(body[j])->decls())
        if (refers_to(body[i], cast<VarDecl>(x))) return std::nullopt;
    for (const VarDecl *v : m.index_vars)
      if (refers_to(body[i], v)) return std::nullopt;
  }
  for (size_t i = first; i + 1 < at; ++i)
    if (block_reads(body[i], *frame.tvars, m.inline_indexes) != 0) return std::nullopt;
  for (size_t i = 0; i < first; ++i)
    for (const Decl *x : cast<DeclStmt>(body[i])->decls()) {
      std::vector<const Expr *> ignored;
      const auto *v = cast<VarDecl>(x);
      if (std::find(m.index_vars.begin(), m.index_vars.end(), v) == m.index_vars.end() && v->getInit() &&
          block_reads(v->getInit(), *frame.tvars, ignored) != 0)
        return std::nullopt;
    }
  m.size_params = integer_params(value);
  return m;
}

// ---- The plan --------------------------------------------------------------

struct Plan {
  std::vector<Collective> collectives;
  std::optional<Merge> merge; // for the only collective, a reduction
  bool floating_sum = false;
};

Expected<Plan> analyze(const KernelAst &k) {
  const auto *body = dyn_cast_or_null<CompoundStmt>(k.kernel()->getBody());
  if (!body) return not_applicable("the kernel has no body");
  Effects fx = effects_of(k.kernel());
  if (fx.inline_asm || fx.unknown_calls)
    return not_applicable("the kernel has inline assembly or calls kbcc cannot see");
  std::set<const VarDecl *> tvars = thread_vars(body);
  Frame frame;
  frame.ctx = &k.context();
  frame.tvars = &tvars;
  std::vector<const Stmt *> list(body->body_begin(), body->body_end());
  Plan plan;
  std::string first_why;
  for (size_t i = 0; i < list.size(); ++i) {
    const ForStmt *loop = loop_of(list[i]);
    if (!loop || !has_barrier(loop->getBody())) continue;
    Collective c;
    // A thread that has returned takes no part in a shuffle of the full warp.
    if (std::any_of(list.begin(), list.begin() + static_cast<long>(i) + 1, has_return)) {
      if (first_why.empty()) first_why = "a thread may return before the loop with barriers";
      continue;
    }
    if (std::string why = match_collective(list, i, frame, k.context(), c); !why.empty()) {
      if (first_why.empty()) first_why = "the loop with barriers is not a block reduction or scan: " + why;
      continue;
    }
    QualType element = c.buf->getType()->getAsArrayTypeUnsafe()->getElementType();
    plan.floating_sum |= element->isRealFloatingType() && c.acc.kind == Accumulation::Sum;
    plan.collectives.push_back(c);
    if (auto m = mergeable(body, list, i, c, frame)) plan.merge = m;
  }
  if (plan.collectives.empty())
    return not_applicable(first_why.empty() ? "no loop with a __syncthreads() per step at the top of the kernel's body"
                                            : first_why);
  if (plan.collectives.size() > 1) plan.merge.reset();
  return plan;
}

// ---- The rewrite -----------------------------------------------------------

const char *kFastShape = "(blockDim.x & (blockDim.x - 1u)) == 0u && blockDim.x >= 32u && blockDim.y == 1u && "
                         "blockDim.z == 1u";

std::string warp_reduce(const Accumulation &a, const std::string &v) {
  return "  for (int __kbcc_o = 16; __kbcc_o > 0; __kbcc_o /= 2) " + v + " = " +
         combine_text(a, v, "__shfl_xor_sync(0xffffffffu, " + v + ", __kbcc_o)") + ";\n";
}

std::string warp_scan(const Accumulation &a, const std::string &v) {
  return "  for (int __kbcc_o = 1; __kbcc_o < 32; __kbcc_o *= 2) {\n    const auto __kbcc_n = "
         "__shfl_up_sync(0xffffffffu, " +
         v + ", __kbcc_o);\n    if (threadIdx.x % 32u >= (unsigned)__kbcc_o) " + v + " = " +
         combine_text(a, "__kbcc_n", v) + ";\n  }\n";
}

// The cell of `buf` that item `j` of this thread holds when each thread
// holds `items` (item j of thread t is cell j * blockDim.x + t).
std::string item_cell(const std::string &buf, long items, const std::string &j) {
  return items == 1 ? buf + "[threadIdx.x]" : buf + "[" + j + " * blockDim.x + threadIdx.x]";
}

std::string items_loop(long items, const std::string &body) {
  if (items == 1) return "  {\n  const unsigned __kbcc_j = 0u;\n" + body + "  }\n";
  return "  #pragma unroll\n  for (unsigned __kbcc_j = 0u; __kbcc_j < " + std::to_string(items) + "u; ++__kbcc_j) {\n" +
         body + "  }\n";
}

// The block reduction into buf[0] by warp shuffles, each thread first
// combining its `items` cells.
std::string fast_reduce(const Collective &c, const std::string &buf, int n, long items) {
  std::string v = "__kbcc_v" + std::to_string(n), w = "__kbcc_w" + std::to_string(n);
  bool idempotent = c.acc.kind == Accumulation::MaxMin || c.acc.kind == Accumulation::And;
  std::string rest = idempotent ? w + "[0]" : "(decltype(" + v + "))0";
  std::string gather;
  if (items > 1)
    gather = "  #pragma unroll\n  for (unsigned __kbcc_j = 1u; __kbcc_j < " + std::to_string(items) +
             "u; ++__kbcc_j) " + v + " = " + combine_text(c.acc, v, item_cell(buf, items, "__kbcc_j")) + ";\n";
  return "{\n  auto " + v + " = " + buf + "[threadIdx.x];\n" + gather + warp_reduce(c.acc, v) +
         "  __shared__ decltype(" + v + ") " + w + "[32];\n  if (threadIdx.x % 32u == 0u) " + w +
         "[threadIdx.x / 32u] = " + v + ";\n  __syncthreads();\n  if (threadIdx.x < 32u) {\n  " + v +
         " = threadIdx.x < blockDim.x / 32u ? " + w + "[threadIdx.x] : " + rest + ";\n" + warp_reduce(c.acc, v) +
         "  if (threadIdx.x == 0u) " + buf + "[0] = " + v + ";\n  }\n  __syncthreads();\n}";
}

// The inclusive block scan of buf by warp shuffles. Each thread holds
// `items` cells; the block's warps times `items` make at most 32 segments of
// 32 consecutive cells, whose totals one warp scans.
std::string fast_scan(const Collective &c, const std::string &buf, int n, long items) {
  std::string v = "__kbcc_v" + std::to_string(n), w = "__kbcc_w" + std::to_string(n);
  std::string vj = v + "[__kbcc_j]", count = std::to_string(items) + "u";
  std::string segment = "__kbcc_j * (blockDim.x / 32u) + threadIdx.x / 32u";
  return "{\n  decltype(+" + buf + "[0]) " + v + "[" + count + "];\n  __shared__ decltype(+" + buf + "[0]) " + w +
         "[32];\n" +
         items_loop(items, "  " + vj + " = " + item_cell(buf, items, "__kbcc_j") + ";\n" + warp_scan(c.acc, vj) +
                               "  if (threadIdx.x % 32u == 31u) " + w + "[" + segment + "] = " + vj + ";\n") +
         "  __syncthreads();\n  if (threadIdx.x < 32u) {\n  auto __kbcc_x = " + w + "[threadIdx.x < " + count +
         " * (blockDim.x / 32u) ? threadIdx.x : 0u];\n" + warp_scan(c.acc, "__kbcc_x") + "  " + w +
         "[threadIdx.x] = __kbcc_x;\n  }\n  __syncthreads();\n" +
         items_loop(items, "  if (" + segment + " > 0u) " + vj + " = " +
                               combine_text(c.acc, w + "[" + segment + " - 1u]", vj) + ";\n  " +
                               item_cell(buf, items, "__kbcc_j") + " = " + vj + ";\n") +
         "  __syncthreads();\n}";
}

Status merge_blocks(const KernelAst &k, const Collective &c, const Merge &m, long factor, Edits &e) {
  size_t begin = statement_begin(k, m.first), lhs_b = 0, lhs_e = 0, rhs_b = 0, rhs_e = 0;
  if (begin == std::string::npos || !k.span(m.store->getLHS()->getSourceRange(), lhs_b, lhs_e) ||
      !k.span(m.store->getRHS()->getSourceRange(), rhs_b, rhs_e))
    return not_applicable("the element's store is written in a macro");
  std::string lhs = k.text(m.store->getLHS()->getSourceRange()), f = std::to_string(factor);
  for (const DeclStmt *d : m.index_decls) {
    size_t at = k.offset(d->getBeginLoc());
    if (at == std::string::npos) return not_applicable("the global index is declared in a macro");
    e.insert(at, "__attribute__((unused)) "); // shadowed in the per-block loop below
  }
  std::string head;
  for (size_t i = 0; i < m.index_vars.size(); ++i)
    head += "using __kbcc_ti" + std::to_string(i) + " = decltype(" + m.index_vars[i]->getName().str() + ");\n  ";
  head += "{\n  decltype(+" + lhs + ") __kbcc_acc = decltype(+" + lhs +
          ")();\n  #pragma unroll\n  for (unsigned __kbcc_k = 0; __kbcc_k < " + f +
          "u; ++__kbcc_k) {\n  const unsigned long long __kbcc_item = ((unsigned long long)blockIdx.x * " + f +
          "ull + __kbcc_k) * blockDim.x + threadIdx.x;\n";
  for (size_t i = 0; i < m.index_vars.size(); ++i)
    head += "  const __kbcc_ti" + std::to_string(i) + " " + m.index_vars[i]->getName().str() + " = (__kbcc_ti" +
            std::to_string(i) + ")__kbcc_item;\n";
  e.insert(begin, head + "  ");
  for (const Expr *g : m.inline_indexes) {
    size_t b = 0, x = 0;
    if (!k.span(g->getSourceRange(), b, x)) return not_applicable("the global index is written in a macro");
    e.replace(b, x, as_index(k.source().substr(b, x - b), "__kbcc_item"));
  }
  e.replace(lhs_b, rhs_b, "const decltype(__kbcc_acc) __kbcc_e = ");
  e.insert(past_semicolon(k.source(), rhs_e),
           "\n  __kbcc_acc = __kbcc_k == 0u ? __kbcc_e : " + combine_text(c.acc, "__kbcc_acc", "__kbcc_e") +
               ";\n  }\n  " + lhs + " = __kbcc_acc;\n  }");
  return Status::ok();
}

// The statements a coarsened kernel replaces: its collectives.
std::map<const Stmt *, std::string> collective_statements(const Plan &plan) {
  std::map<const Stmt *, std::string> out;
  for (const Collective &c : plan.collectives)
    out[c.top] = "";
  return out;
}

// Whether every captured launch can run `items` cells per thread: a
// one-dimensional power-of-two block of at least 32 * items threads.
bool launches_allow(const std::vector<launch::Launch> &launches, long items) {
  return std::all_of(launches.begin(), launches.end(), [&](const launch::Launch &l) {
    uint32_t b = l.block[0];
    return l.block[1] == 1 && l.block[2] == 1 && (b & (b - 1)) == 0 && b >= 32 * items && b <= 1024;
  });
}

Expected<std::vector<Axis>> space(const Input &in) {
  auto plan = analyze(*in.ast);
  if (!plan) return plan.error();
  if (plan->merge) return std::vector<Axis>{{"factor", {"16", "8", "32", "4", "1"}}};
  if (!virtual_threads_refusal(*in.ast, collective_statements(*plan)).empty()) return std::vector<Axis>{};
  Axis items{"items", {}};
  for (const char *v : {"4", "2", "8"})
    if (launches_allow(in.launches, std::stol(v))) items.values.emplace_back(v);
  if (items.values.empty()) return std::vector<Axis>{};
  items.values.emplace_back("1");
  return std::vector<Axis>{items};
}

// The mapping of a kernel whose threads hold `items` cells each.
launch::LaunchMapping items_mapping(long items) {
  launch::LaunchMapping m;
  m.block = {"block.x / " + std::to_string(items), "block.y", "block.z"};
  std::string sizes;
  for (long b = 32 * items; b <= 1024; b *= 2)
    sizes += (sizes.empty() ? "" : " || ") + std::string("block.x == ") + std::to_string(b);
  m.preconditions = {sizes, "block.y == 1", "block.z == 1"};
  return m;
}

Expected<Output> apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto plan = analyze(k);
  if (!plan) return plan.error();
  long factor = plan->merge ? int_param(params, "factor", 16) : 1;
  long items = plan->merge ? 1 : int_param(params, "items", 1);
  if (factor < 1 || factor > 256) return not_applicable("factor out of range");
  if (items != 1 && items != 2 && items != 4 && items != 8 && items != 16)
    return not_applicable("items must be 1, 2, 4, 8 or 16");
  Edits e;
  std::map<const Stmt *, std::string> rewritten;
  int n = 0;
  for (const Collective &c : plan->collectives) {
    size_t at = statement_begin(k, c.top), end = statement_end(k, c.top);
    if (at == std::string::npos || end == std::string::npos) return not_applicable("the loop is written in a macro");
    std::string buf = c.buf->getName().str();
    std::string fast = c.kind == Collective::Reduce ? fast_reduce(c, buf, n, items) : fast_scan(c, buf, n, items);
    ++n;
    if (items > 1) {
      rewritten[c.top] = fast;
      continue;
    }
    e.insert(at, std::string("if (") + kFastShape + ") " + fast + " else {\n  ");
    e.insert(end, "\n  }");
  }
  if (items > 1)
    if (auto st = add_virtual_threads(k, items, rewritten, e); !st) return st.error();
  if (factor > 1)
    if (auto st = merge_blocks(k, plan->collectives.front(), *plan->merge, factor, e); !st) return st.error();
  auto text = e.apply(k.source());
  if (!text) return text.error();
  Output out;
  out.source = *text;
  out.numerics = plan->floating_sum ? cache::kNumericsReassociates : cache::kNumericsExact;
  if (plan->floating_sum) out.reduction_length = "1024";
  if (items > 1) out.launch = items_mapping(items);
  if (factor > 1) {
    launch::LaunchMapping m;
    m.grid = {"grid.x / " + std::to_string(factor), "grid.y", "grid.z"};
    m.preconditions = {"grid.x % " + std::to_string(factor) + " == 0"};
    out.launch = m;
    out.size_params.assign(plan->merge->size_params.begin(), plan->merge->size_params.end());
  }
  return out;
}

} // namespace

Transform collectives_transform() {
  return {"shuffle_collectives",
          cache::kNumericsReassociates,
          "a block reduction or scan over a shared array with a barrier per step becomes warp shuffles (checked by "
          "running its index arithmetic for every power-of-two block); a reduction sent to one atomic merges "
          "`factor` blocks; otherwise each thread may hold `items` cells (block.x / items threads)",
          true,
          space,
          apply};
}

} // namespace kbcc::transform
