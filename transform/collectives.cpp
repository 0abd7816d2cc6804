// shuffle_collectives: block-wide reductions and scans written as a loop with
// a barrier per step over a __shared__ array, or as one thread's loop over
// the block's cells, become warp-shuffle collectives with two or three
// barriers.
//
// Recognised loops, at the top level of the kernel's body, over a shared
// array `buf` and t = threadIdx.x (or a local initialised to it):
//   tree reduction:     for (s = I; C; step) { [if (G)] U(buf[A], buf[B]); __syncthreads(); }
//                       (or the barrier first, then the update; integer locals
//                       the step declares, such as `int index = 2 * s * t;`, may
//                       come before the update; the guarded update may
//                       combine several shared arrays at the same cells,
//                       each reduced in turn)
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
// prefix of element t in buf[t]. The shuffles run for the widest range of
// proven blocks that starts at the largest proven one (a loop that leaves
// the last 64 cells to one warp needs 64 threads; a loop from a constant
// fits one block); other blocks keep the loop, as does any other block
// shape, behind a block-uniform test.
//
// A reduction's steps may also be written out, a statement per step behind
// tests of the block's size (section "Steps written out"). A reduction may
// hand its last steps to one warp, through volatile accesses and without
// barriers, in the statement right after its loop or steps (section
// "Warp-synchronous tails"); the rewrite replaces both.
//
// Thread 0's loop: `if (t == 0) { ... for (i = S; i < N; ++i) E op= F(i);
// ... }` at the top level (right after a barrier when F reads shared
// arrays), F reading shared or global arrays at indexes every thread can
// compute, becomes a reduction of F(S..N) by every thread before the branch
// (section "Serial reductions").
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
#include "transform/uniform.h"
#include "transform/virtual_threads.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

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
  if (auto v = constant_value(e, *f.ctx)) return *v; // literals, constexpr, enumerators
  return std::nullopt;
}

// ---- The loop --------------------------------------------------------------

struct Head {
  const VarDecl *s = nullptr;
  const Expr *init = nullptr, *cond = nullptr, *inc = nullptr;
};

// The variable `loop` steps and its start: `for (T s = I; C; inc)`, or
// `for (s = I; C; inc)` over a local declared elsewhere without an
// initializer that no other statement refers to (C89 style). The body
// must not assign it.
std::optional<Head> head_of(const ForStmt *loop) {
  if (!loop->getCond() || !loop->getInc()) return std::nullopt;
  const VarDecl *s = nullptr;
  const Expr *init = nullptr;
  if (const auto *d = dyn_cast_or_null<DeclStmt>(loop->getInit()); d && d->isSingleDecl()) {
    s = dyn_cast<VarDecl>(d->getSingleDecl());
    init = s ? s->getInit() : nullptr;
  } else if (const auto *b = dyn_cast_or_null<BinaryOperator>(loop->getInit()); b && b->getOpcode() == BO_Assign) {
    s = var_of(b->getLHS());
    const auto *fn = s ? dyn_cast_or_null<FunctionDecl>(s->getParentFunctionOrMethod()) : nullptr;
    bool only_here = fn && fn->getBody() && s->hasLocalStorage() && !isa<ParmVarDecl>(s) && !s->getInit() &&
                     references(fn->getBody(), s) == references(loop, s);
    init = only_here ? b->getRHS() : nullptr;
  }
  if (!s || !init || !s->getType()->isIntegerType() || assigns(loop->getBody(), s)) return std::nullopt;
  return Head{s, init, loop->getCond(), loop->getInc()};
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
  Value v = eval(h.init, f);
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

// x op= y, x = x op y, x = y op x, x = f(x, y), x = f(y, x): an update of
// the lvalue x by an associative operation.
struct Combine {
  const Expr *target = nullptr; // x
  const Expr *other = nullptr;  // y
  Accumulation acc;
};

std::optional<Combine> match_combine(const Stmt *s, const ASTContext &ctx) {
  const auto *b = dyn_cast_or_null<BinaryOperator>(s);
  if (!b || !b->isAssignmentOp()) return std::nullopt;
  Combine u;
  u.target = b->getLHS();
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

// An update of a cell of `buf` (any shared array when buf is null).
struct Update {
  const Expr *a = nullptr;     // the updated cell's index
  const Expr *other = nullptr; // y
  Accumulation acc;
};

std::optional<Update> match_update(const Stmt *s, const VarDecl *&buf, const ASTContext &ctx) {
  auto c = match_combine(s, ctx);
  if (!c) return std::nullopt;
  Update u{cell(c->target, buf), c->other, c->acc};
  return u.a ? std::optional<Update>(u) : std::nullopt;
}

bool is_zero_literal(const Expr *e) {
  e = e->IgnoreParenCasts();
  if (const auto *i = dyn_cast<IntegerLiteral>(e)) return i->getValue().isZero();
  if (const auto *fl = dyn_cast<FloatingLiteral>(e)) return fl->getValue().isZero();
  return false;
}

struct Collective {
  enum Kind { Reduce, Scan } kind = Reduce;
  const ForStmt *loop = nullptr;
  Head head;
  const VarDecl *buf = nullptr;
  Accumulation acc;
  const Expr *guard = nullptr, *a = nullptr, *b = nullptr; // reduce: [if (guard)] buf[a] op= buf[b]
  // reduce: more arrays the same steps combine, other[a] op= other[b] (their cells move as buf's)
  std::vector<std::pair<const VarDecl *, Accumulation>> more;
  const Expr *guard2 = nullptr;                 // scan: v = guard ? buf[b] : 0; [if (guard2)] buf[a] op= v
  std::map<const VarDecl *, const Expr *> lets; // reduce: integer locals each step declares, and their values
  // reduce: a step outside a loop, or a barrier
  struct Written {
    std::vector<const Expr *> when;        // conditions around it, the same for the whole block
    std::vector<const Expr *> guards;      // conditions of the thread (updates only)
    const Expr *a = nullptr, *b = nullptr; // buf[a] op= buf[b]; null for a barrier
  };
  // reduce: the steps written out instead of a loop (section "Steps written out")
  std::vector<Written> written;
  // reduce: the warp-synchronous steps right after the loop or steps, `if (G)
  // { [if (G2)] w[a] op= w[b]; ... }`, each with its guards G and G2 (section
  // "Warp-synchronous tails")
  const Stmt *tail = nullptr;
  std::vector<Written> tail_steps;
  std::vector<const Stmt *> span; // the top-level statements the rewrite replaces, in order
  int64_t min_block = 32;         // the power-of-two blocks the collective is proven for
  int64_t max_block = 1024;
};

// Whether evaluating `s` may change state: calls other than builtin index
// reads, assignments, increments.
bool changes_state(const Stmt *s) {
  if (!s) return false;
  if (const auto *e = dyn_cast<Expr>(s); e && as_builtin(e)) return false;
  if (isa<CallExpr>(s) || (isa<BinaryOperator>(s) && cast<BinaryOperator>(s)->isAssignmentOp()) ||
      (isa<UnaryOperator>(s) && cast<UnaryOperator>(s)->isIncrementDecrementOp()))
    return true;
  return std::any_of(s->child_begin(), s->child_end(), changes_state);
}

// Whether `v` is an integer local of index arithmetic in `scope`: initialised
// without changing state (a rewrite that drops its declaration loses
// nothing) from anything but itself, and never assigned there.
bool is_index_local(const VarDecl *v, const Stmt *scope) {
  return v && v->getType()->isIntegerType() && v->getInit() && !changes_state(v->getInit()) &&
         !refers_to(v->getInit(), v) && !assigns(scope, v);
}

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
    if (is_index_local(v, c.loop->getBody()))
      c.lets[v] = v->getInit();
    else if (!isa<NullStmt>(st))
      body.push_back(st);
  }
  if (body.size() != 2 || is_syncthreads(body[0]) == is_syncthreads(body[1]))
    return "its body is not an update and __syncthreads(), in either order";
  const Stmt *update = is_syncthreads(body[0]) ? body[1] : body[0];
  std::vector<const Stmt *> updates{update};
  if (const auto *i = dyn_cast<IfStmt>(update)) {
    if (i->getElse() || i->getInit() || i->getConditionVariable())
      return "its guard has an else branch or a declaration";
    c.guard = i->getCond();
    updates = statements(i->getThen());
  }
  // Several arrays may be combined in the same steps at the same cells.
  for (const Stmt *st : updates) {
    const VarDecl *buf = nullptr;
    auto u = match_update(st, buf, ctx);
    if (!u) return "its update is not buf[a] op= buf[b] (op + | ^ & or a max/min function)";
    const Expr *b = cell(u->other, buf);
    if (!b) return "its update does not combine two cells of one shared array";
    if (!c.buf) {
      c.buf = buf, c.a = u->a, c.b = b, c.acc = u->acc;
      continue;
    }
    bool seen =
        buf == c.buf || std::any_of(c.more.begin(), c.more.end(), [&](const auto &m) { return m.first == buf; });
    if (seen || !same_expr(u->a, c.a, ctx) || !same_expr(b, c.b, ctx))
      return "its updates do not combine the same cells of distinct shared arrays";
    c.more.emplace_back(buf, u->acc);
  }
  if (!c.buf) return "its update is not buf[a] op= buf[b] (op + | ^ & or a max/min function)";
  c.kind = Collective::Reduce;
  return {};
}

// The arrays a collective combines, with their operations: buf first.
std::vector<std::pair<const VarDecl *, Accumulation>> combined(const Collective &c) {
  std::vector<std::pair<const VarDecl *, Accumulation>> out{{c.buf, c.acc}};
  out.insert(out.end(), c.more.begin(), c.more.end());
  return out;
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

// ---- Warp-synchronous tails -------------------------------------------------
//
// A tree reduction often stops its loop at 64 cells and lets the first warp
// finish without barriers, through volatile accesses (the "unrolled last
// warp"): `if (t < 32) { volatile T *w = buf; w[t] += w[t + 32]; ...
// w[t] += w[t + 1]; }`, or a __device__ helper `warpReduce(buf, t)` with
// those lines, which the normal form inlines. The lanes of a warp run such a
// step together: each reads its cells before any writes. The steps are
// simulated that way, and only when every access is volatile (a plain one
// may be kept in a register, and then the steps mean nothing) and each
// step's active threads lie in one warp.

bool is_syncwarp(const Stmt *s) {
  const auto *call = dyn_cast_or_null<CallExpr>(s);
  const FunctionDecl *fd = call ? call->getDirectCallee() : nullptr;
  return fd && fd->getIdentifier() && fd->getName() == "__syncwarp";
}

// The statements of `s`, nested blocks flattened.
void flatten(const Stmt *s, std::vector<const Stmt *> &out) {
  if (const auto *c = dyn_cast_or_null<CompoundStmt>(s)) {
    for (const Stmt *x : c->body())
      flatten(x, out);
  } else if (s && !isa<NullStmt>(s)) {
    out.push_back(s);
  }
}

// The index of `e` when it is w[index] with w a pointer in `aliases`, or
// buf[index] when buf's elements are volatile; null otherwise.
const Expr *volatile_cell(const Expr *e, const VarDecl *buf, const std::set<const VarDecl *> &aliases) {
  const auto *sub = dyn_cast<ArraySubscriptExpr>(e->IgnoreParenImpCasts());
  const VarDecl *base = sub ? var_of(sub->getBase()) : nullptr;
  if (!base) return nullptr;
  if (aliases.count(base)) return sub->getIdx();
  bool is_volatile = base == buf && buf->getType()->getAsArrayTypeUnsafe()->getElementType().isVolatileQualified();
  return is_volatile ? sub->getIdx() : nullptr;
}

// Whether `v`, declared in `tail`, is a pointer to volatile elements that
// holds the start of `buf` and that `tail` never assigns.
bool is_volatile_alias(const VarDecl *v, const VarDecl *buf, const Stmt *tail) {
  if (!v->getType()->isPointerType() || !v->getType()->getPointeeType().isVolatileQualified() || !v->getInit())
    return false;
  return var_of(v->getInit()) == buf && !assigns(tail, v);
}

// Whether `b` directly follows `a` in a block under `root`.
bool follows(const Stmt *root, const Stmt *a, const Stmt *b) {
  bool found = false;
  walk(root, [&](const Stmt *x) {
    const auto *block = dyn_cast<CompoundStmt>(x);
    for (auto it = block ? block->body_begin() : nullptr; block && it != block->body_end(); ++it)
      found = found || (*it == a && std::next(it) != block->body_end() && *std::next(it) == b);
  });
  return found;
}

// Statement `s`, right after a reduction's loop, as its warp-synchronous
// tail over c.buf with c's operation; why not.
std::string match_tail(const Stmt *s, Collective &c, const ASTContext &ctx) {
  const auto *i = dyn_cast<IfStmt>(s);
  if (!i || i->getElse() || i->getInit() || i->getConditionVariable() || !refers_to(i->getThen(), c.buf))
    return "it is not `if (G)` over the reduced array";
  std::vector<const Stmt *> list;
  flatten(i->getThen(), list);
  std::set<const VarDecl *> aliases;
  std::map<const VarDecl *, const Expr *> lets;
  std::vector<Collective::Written> steps;
  const char *shape = "its steps are not w[a] op= w[b], with the reduction's operation, through a pointer to "
                      "volatile elements";
  for (const Stmt *st : list) {
    if (is_syncwarp(st)) continue;
    if (const auto *d = dyn_cast<DeclStmt>(st)) {
      const auto *v = d->isSingleDecl() ? dyn_cast<VarDecl>(d->getSingleDecl()) : nullptr;
      if (v && is_volatile_alias(v, c.buf, s)) {
        aliases.insert(v);
      } else if (is_index_local(v, s)) {
        lets[v] = v->getInit();
      } else {
        return "it declares something other than a volatile pointer to the array or an integer of index "
               "arithmetic";
      }
      continue;
    }
    Collective::Written step{{}, {i->getCond()}};
    if (const auto *g = dyn_cast<IfStmt>(st)) {
      if (g->getElse() || g->getInit() || g->getConditionVariable()) return shape;
      step.guards.push_back(g->getCond());
      st = single(g->getThen());
    }
    auto u = st ? match_combine(st, ctx) : std::nullopt;
    if (!u || u->acc.kind != c.acc.kind || u->acc.combine != c.acc.combine) return shape;
    step.a = volatile_cell(u->target, c.buf, aliases);
    step.b = volatile_cell(u->other, c.buf, aliases);
    if (!step.a || !step.b) return shape;
    steps.push_back(step);
  }
  if (steps.empty()) return shape;
  c.lets.insert(lets.begin(), lets.end());
  c.tail = s;
  c.tail_steps = std::move(steps);
  return {};
}

// ---- Steps written out -----------------------------------------------------
//
// A tree reduction may be written without a loop, a statement per step, each
// behind a test of the block's size (the "completely unrolled" reduction):
//   if (blockDim.x >= 512) { if (t < 256) buf[t] += buf[t + 256]; __syncthreads(); }
//   if (blockDim.x >= 256 && t < 128) buf[t] += buf[t + 128]; __syncthreads();
// or, in an instance of a kernel template, `if (blockSize >= 512)` with the
// block size a template argument. The statements are read as a list of
// updates and barriers, each under the conditions around it; a condition
// around a barrier must be integer arithmetic of blockDim.x and constants,
// so that the whole block takes it or none. The simulation runs the list for
// each block as it runs a loop's steps, and any two updates that run must
// have a barrier between them.

bool has_barrier(const Stmt *s) {
  if (!s) return false;
  if (is_syncthreads(s)) return true;
  for (const Stmt *c : s->children())
    if (has_barrier(c)) return true;
  return false;
}

// Whether `e` has a value for every power-of-two block without reading the
// thread: the same for all threads of a block.
bool is_block_uniform(const Expr *e, Frame f) {
  f.has_t = false;
  f.has_s = false;
  for (f.block = 32; f.block <= 1024; f.block *= 2)
    if (!eval(e, f)) return false;
  return true;
}

// Appends the updates and barriers of `s`, under the conditions `when` and
// `guards` around it, to `out`. False when `s` holds anything else, an
// update of another array or with another operation than the earlier ones
// (the first sets c.buf and c.acc), or a barrier under a condition that may
// differ between the block's threads.
bool written_steps(const Stmt *s, std::vector<const Expr *> when, std::vector<const Expr *> guards, const Frame &frame,
                   const ASTContext &ctx, Collective &c, std::vector<Collective::Written> &out) {
  if (!s || isa<NullStmt>(s)) return true;
  if (const auto *block = dyn_cast<CompoundStmt>(s))
    return std::all_of(block->body_begin(), block->body_end(),
                       [&](const Stmt *x) { return written_steps(x, when, guards, frame, ctx, c, out); });
  if (is_syncthreads(s)) { // never under a guard: those hold no barrier
    out.push_back({when, {}, nullptr, nullptr});
    return true;
  }
  if (const auto *i = dyn_cast<IfStmt>(s)) {
    if (i->getElse() || i->getInit() || i->getConditionVariable()) return false;
    if (!has_barrier(i->getThen())) {
      guards.push_back(i->getCond());
    } else if (is_block_uniform(i->getCond(), frame)) {
      when.push_back(i->getCond());
    } else {
      return false;
    }
    return written_steps(i->getThen(), when, guards, frame, ctx, c, out);
  }
  const VarDecl *buf = c.buf;
  auto u = match_update(s, buf, ctx);
  const Expr *b = u ? cell(u->other, buf) : nullptr;
  if (!b || (c.buf && (u->acc.kind != c.acc.kind || u->acc.combine != c.acc.combine))) return false;
  c.buf = buf;
  c.acc = u->acc;
  out.push_back({when, guards, u->a, b});
  return true;
}

// Whether `steps` has two updates with no barrier between them.
bool updates_back_to_back(const std::vector<Collective::Written> &steps) {
  for (size_t i = 1; i < steps.size(); ++i)
    if (steps[i].a && steps[i - 1].a) return true;
  return false;
}

// Whether `s` has a barrier under a condition that may differ between the
// block's threads.
bool divergent_barrier(const Stmt *s, const Frame &frame) {
  if (const auto *i = dyn_cast_or_null<IfStmt>(s);
      i && has_barrier(i->getThen()) && !is_block_uniform(i->getCond(), frame))
    return true;
  return s && std::any_of(s->child_begin(), s->child_end(), [&](const Stmt *c) { return divergent_barrier(c, frame); });
}

// The steps written out from body[i] on, into c: the longest run of
// statements that are updates of one shared array and barriers, no two
// updates back to back (an update with no barrier after it ends the run
// before its statement, which may be the last warp's steps). nullopt when
// body[i] starts no run of two updates or more with a barrier; otherwise
// why the run is not a collective's steps ("" when it is).
std::optional<std::string> match_written(const std::vector<const Stmt *> &body, size_t i, const Frame &frame,
                                         const ASTContext &ctx, Collective &c) {
  size_t end = i;
  for (; end < body.size(); ++end) {
    Collective next = c;
    std::vector<Collective::Written> more;
    if (!written_steps(body[end], {}, {}, frame, ctx, next, more)) break;
    next.written.insert(next.written.end(), more.begin(), more.end());
    if (updates_back_to_back(next.written)) break;
    c = std::move(next);
  }
  if (end == i) {
    // An update of two cells outside any loop, as a written-out step.
    std::function<bool(const Stmt *)> updates_cells = [&](const Stmt *x) {
      const VarDecl *buf = nullptr;
      auto u = x ? match_update(x, buf, ctx) : std::nullopt;
      if (u && cell(u->other, buf)) return true;
      return x && !isa<ForStmt, WhileStmt, DoStmt>(x) && std::any_of(x->child_begin(), x->child_end(), updates_cells);
    };
    if (updates_cells(body[i]) && divergent_barrier(body[i], frame))
      return std::string("a barrier runs under a condition that may differ between the block's threads");
    return std::nullopt;
  }
  auto updates = std::count_if(c.written.begin(), c.written.end(), [](const auto &w) { return w.a != nullptr; });
  if (updates < 2 || updates == static_cast<long>(c.written.size()) || !c.written.front().a) return std::nullopt;
  c.kind = Collective::Reduce;
  c.span.assign(body.begin() + static_cast<long>(i), body.begin() + static_cast<long>(end));
  return std::string();
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

// One step of a reduction: each thread for which every guard holds combines
// cell b into cell a. In the last warp's steps (`warp`), those threads must
// lie in one warp, and each reads before any writes; elsewhere no thread may
// read a cell another updates. Why the step cannot run ("" when it ran).
std::string combine_step(const std::vector<const Expr *> &guards, const Expr *a_at, const Expr *b_at, bool warp,
                         Frame f, Cells &cells) {
  f.has_t = true;
  const std::string where = warp ? " after the loop" : "";
  std::vector<int> writer(f.block, -1), reader(f.block, -1);
  Cells next = cells;
  int64_t lanes = -1;
  for (f.t = 0; f.t < f.block; ++f.t) {
    std::optional<bool> on = true;
    for (const Expr *g : guards)
      if (on && *on) on = active(g, f);
    if (!on)
      return warp ? "a guard after the loop is not integer arithmetic of t and blockDim.x"
                  : "its guard is not integer arithmetic of t, the loop variable and blockDim.x";
    if (!*on) continue;
    if (warp && lanes != -1 && lanes != f.t / 32) return "a step after the loop runs on two warps without a barrier";
    lanes = f.t / 32;
    int64_t a = 0, b = 0;
    if (!index_in(a_at, f, a) || !index_in(b_at, f, b)) return "a step" + where + " reaches outside [0, blockDim.x)";
    if (writer[a] != -1) return "two threads update one cell in a step" + where;
    writer[a] = static_cast<int>(f.t);
    reader[b] = reader[b] == -1 || reader[b] == f.t ? static_cast<int>(f.t) : -2;
    next[a].insert(next[a].end(), cells[b].begin(), cells[b].end());
  }
  for (int64_t x = 0; !warp && x < f.block; ++x)
    if (writer[x] >= 0 && reader[x] != -1 && reader[x] != writer[x])
      return "a step reads a cell another thread updates";
  cells = std::move(next);
  return {};
}

std::string reduce_step(const Collective &c, const Frame &at, Cells &cells) {
  return combine_step({c.guard}, c.a, c.b, false, at, cells);
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

// Runs the last warp's steps after the loop; why they cannot ("" when they ran).
std::string tail_steps(const Collective &c, Frame f, Cells &cells) {
  f.has_s = false;
  for (const Collective::Written &step : c.tail_steps)
    if (std::string why = combine_step(step.guards, step.a, step.b, true, f, cells); !why.empty()) return why;
  return {};
}

// Runs the steps written out; why they cannot ("" when they ran).
std::string written_run(const Collective &c, Frame f, Cells &cells) {
  f.has_s = false;
  bool pending = false; // an update ran since the last barrier
  for (const Collective::Written &w : c.written) {
    f.has_t = false;
    std::optional<bool> on = true;
    for (const Expr *x : w.when)
      if (on && *on) on = active(x, f);
    if (!on) return "a condition around a barrier is not integer arithmetic of blockDim.x and constants";
    if (!*on) continue;
    if (w.a && pending) return "two of its steps run without a barrier between them";
    pending = w.a != nullptr;
    if (std::string why = w.a ? combine_step(w.guards, w.a, w.b, false, f, cells) : ""; !why.empty()) return why;
  }
  return {};
}

// Runs the collective with `block` threads; why it is not a reduction into
// buf[0] (or an inclusive scan) of every element ("" when it is).
std::string simulate(const Collective &c, Frame f) {
  Cells cells(f.block);
  for (int64_t i = 0; i < f.block; ++i)
    cells[i] = {static_cast<int>(i)};
  std::string why = !c.loop ? written_run(c, f, cells) : run_loop(c.head, f, [&](const Frame &at) {
    return c.kind == Collective::Reduce ? reduce_step(c, at, cells) : scan_step(c, at, cells);
  });
  if (why.empty() && c.tail) why = tail_steps(c, f, cells);
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
    if (const auto *sub = dyn_cast<ArraySubscriptExpr>(x))
      if (shared_array(sub->getBase()) == buf &&
          (sub == skip || constant_value(sub->getIdx(), buf->getASTContext()) == 0))
        ++zero;
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

// Sets c.min_block and c.max_block to the widest range of power-of-two
// blocks, the largest first, that the collective is proven for; why it is
// proven for none (its reason at 1024 threads).
std::string prove_blocks(Collective &c, const Frame &frame) {
  Frame f = frame;
  f.s = c.head.s;
  f.lets = &c.lets;
  std::string why_1024;
  c.max_block = 0;
  for (int64_t block = 1024; block >= 32; block /= 2) {
    f.block = block;
    std::string why = simulate(c, f);
    if (block == 1024) why_1024 = why;
    if (why.empty() && (c.max_block == 0 || c.min_block == block * 2)) {
      c.max_block = std::max(c.max_block, block);
      c.min_block = block;
    }
  }
  return c.max_block == 0 ? why_1024 + " (1024 threads)" : std::string();
}

bool is_thread_zero_branch(const Stmt *s, const Frame &frame);

// The loop at body[i] as a collective's steps; why it is not one.
std::string match_loop(const std::vector<const Stmt *> &body, size_t i, const ASTContext &ctx, Collective &c) {
  c.loop = loop_of(body[i]);
  auto head = head_of(c.loop);
  if (!head) return "its loop does not step an integer variable of its own";
  c.head = *head;
  auto list = statements(c.loop->getBody());
  std::string why_reduce = match_reduce(list, c, ctx);
  if (!why_reduce.empty()) {
    const ForStmt *loop = c.loop;
    c = Collective{};
    c.loop = loop;
    c.head = *head;
    if (std::string why_scan = match_scan(list, c, ctx); !why_scan.empty())
      return std::count_if(list.begin(), list.end(), is_syncthreads) == 1 ? why_reduce : why_scan;
  }
  c.span = {body[i]};
  return {};
}

// Completes collective `c`, whose steps c.span start at body[i], a statement
// under `root`: the last warp's steps right after them, the blocks it is
// proven for, and what the kernel reads after it; why it is not a collective.
std::string complete_collective(const Stmt *root, const std::vector<const Stmt *> &body, size_t i, const Frame &frame,
                                const ASTContext &ctx, Collective &c) {
  for (const auto &[buf, acc] : combined(c))
    if (!supported_element(buf->getType()->getAsArrayTypeUnsafe()->getElementType()))
      return "the shared array's element type has no shuffle (int, unsigned, long long, float, double)";
  std::string tail_why;
  size_t next = i + c.span.size();
  if (c.kind == Collective::Reduce && c.more.empty() && next < body.size() &&
      follows(root, c.span.back(), body[next]) && !is_thread_zero_branch(body[next], frame))
    tail_why = match_tail(body[next], c, ctx);
  if (c.tail) c.span.push_back(c.tail);
  if (std::string why = prove_blocks(c, frame); !why.empty())
    return c.tail || tail_why.empty() ? why
                                      : why + "; the statement after the " + (c.loop ? "loop" : "steps") +
                                            " is no warp's last steps: " + tail_why;
  if (c.kind == Collective::Reduce)
    for (const auto &[buf, acc] : combined(c))
      if (std::string why = reads_after(
              std::vector<const Stmt *>(body.begin() + static_cast<long>(i + c.span.size()), body.end()), buf, frame);
          !why.empty())
        return why;
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

// Whether `s` is `if (C) ...` without else, with C true for thread 0 alone.
bool is_thread_zero_branch(const Stmt *s, const Frame &frame) {
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
  return true;
}

// `if (t == 0) atomicOp(p, buf[0]);` with p independent of the block.
bool is_block_result_atomic(const Stmt *s, const Collective &c, const Frame &frame) {
  if (!is_thread_zero_branch(s, frame)) return false;
  const auto *i = cast<IfStmt>(s);
  const auto *call = dyn_cast_or_null<CallExpr>(single(i->getThen()));
  const FunctionDecl *fd = call ? call->getDirectCallee() : nullptr;
  if (!fd || !fd->getIdentifier() || fd->getName() != atomic_for(c.acc) || call->getNumArgs() != 2) return false;
  const VarDecl *buf = c.buf;
  const Expr *index = cell(call->getArg(1), buf);
  if (!index || constant_value(index, buf->getASTContext()) != 0) return false;
  std::vector<const Expr *> idioms;
  return block_reads(call->getArg(0), *frame.tvars, idioms) == 0 && idioms.empty();
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

// ---- Serial reductions -----------------------------------------------------
//
// A block reduction written as one thread's loop:
//   if (t == 0) { ...; for (i = S; i < N; ++i) { E op= F(i); ... } ... }
// where F reads shared arrays (then after a barrier), or global ones when E
// is not global memory, and values every thread of the block has. Every
// thread computes a blockDim.x-strided share of op over F(S..N), the warps
// combine the shares by shuffles, and thread 0 combines the total into E
// where the loop was. Nothing before the loop in the branch may write the
// kind of memory F reads, so the reduction can run before the branch and
// read what the loop would have.

struct SerialUpdate {
  const Expr *target = nullptr; // E
  Accumulation acc;
  std::string element; // F, the loop variable written __kbcc_j
  std::string type;    // E's type
};

struct Serial {
  const Stmt *branch = nullptr; // if (t == 0) ...
  const Stmt *loop = nullptr;   // the loop's statement in the branch (or its #pragma)
  std::string var_type;         // the loop variable's type
  std::string start, cond;      // S, and the loop's condition with the loop variable written __kbcc_j
  std::string length;           // N in the launch-mapping language ("" when it has none)
  std::vector<SerialUpdate> updates;
  bool reads_global = false; // an element reads global memory
  bool reads_shared = false; // an element reads a shared array
};

// The text of builtins that every thread of a block reads the same.
std::optional<std::string> block_uniform_builtin(const Expr *e) {
  auto b = as_builtin(e);
  if (!b || b->var == Builtin::ThreadIdx) return std::nullopt;
  static const char *const vars[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
  return std::string(vars[b->var]) + "." + "xyz"[b->dim];
}

// Where an lvalue lives, as far as the kernel's text shows.
enum class Place { Local, Shared, Global, Unknown };

Place place_of(const Expr *lhs) {
  lhs = lhs->IgnoreParenImpCasts();
  const Expr *base = nullptr;
  if (const auto *sub = dyn_cast<ArraySubscriptExpr>(lhs)) base = sub->getBase();
  if (const auto *u = dyn_cast<UnaryOperator>(lhs); u && u->getOpcode() == UO_Deref) base = u->getSubExpr();
  if (base && root_parameter(base)) return Place::Global;
  const VarDecl *v = var_of(base ? base : lhs);
  if (!v || (base && !v->getType()->isArrayType())) return Place::Unknown;
  if (v->hasAttr<CUDASharedAttr>()) return Place::Shared;
  return v->hasLocalStorage() ? Place::Local : Place::Global;
}

// Whether `s` may write shared memory (`shared`) or other memory: stores to
// such places or to unknown ones, calls given addresses or shared
// variables, barriers.
bool may_write(const Stmt *s, bool shared) {
  bool may = false;
  auto stored = [&](const Expr *lhs) {
    Place p = place_of(lhs);
    return p == Place::Unknown || p == (shared ? Place::Shared : Place::Global);
  };
  walk(s, [&](const Stmt *x) {
    if (const auto *b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp()) may |= stored(b->getLHS());
    if (const auto *u = dyn_cast<UnaryOperator>(x); u && u->isIncrementDecrementOp()) may |= stored(u->getSubExpr());
    if (const auto *call = dyn_cast<CallExpr>(x))
      for (const Expr *arg : call->arguments())
        walk(arg, [&](const Stmt *y) {
          const VarDecl *v = isa<DeclRefExpr>(y) ? var_of(cast<Expr>(y)) : nullptr;
          may |= (v && v->hasAttr<CUDASharedAttr>()) ||
                 (isa<UnaryOperator>(y) && cast<UnaryOperator>(y)->getOpcode() == UO_AddrOf);
        });
    may |= is_syncthreads(x);
  });
  return may;
}

// Whether an update of `target` (type `target_type`) by `other` may combine
// `other` converted to the target's type: the same type; or integers, for the
// operations that wrap; or a float into a double sum.
bool convertible_element(QualType target_type, QualType other, const Accumulation &acc) {
  target_type = target_type.getCanonicalType().getUnqualifiedType();
  other = other.getCanonicalType().getUnqualifiedType();
  if (target_type == other) return true;
  if (acc.kind == Accumulation::MaxMin) return false;
  if (target_type->isIntegerType() && other->isIntegerType()) return true;
  return acc.kind == Accumulation::Sum && target_type->isSpecificBuiltinType(BuiltinType::Double) &&
         other->isSpecificBuiltinType(BuiltinType::Float);
}

// The lvalue `target` of a serial update: a local scalar, a shared scalar or
// an array element at an index without side effects; why not ("" when it is).
std::string serial_target(const KernelAst &k, const Expr *target, const VarDecl *var) {
  const Expr *e = target->IgnoreParenImpCasts();
  size_t b = 0, x = 0;
  if (!k.span(target->getSourceRange(), b, x)) return "it accumulates into a place written in a macro";
  if (changes_state(target) || refers_to(target, var)) return "it accumulates into a place the loop moves";
  if (const auto *ref = dyn_cast<DeclRefExpr>(e)) {
    const auto *v = dyn_cast<VarDecl>(ref->getDecl());
    if (v && v->getType()->isScalarType()) return {};
  }
  if (isa<ArraySubscriptExpr>(e)) return {};
  return "it accumulates into something other than a variable or an array element";
}

// Index reads that a serial element makes, for the overlap check.
struct ElementReads {
  std::vector<std::pair<const VarDecl *, const Expr *>> shared; // array, index
  bool global = false;
};

// Whether `call` is a math function of CUDA's headers without side effects
// (expf, __expf, fabsf, sqrt, max, ...).
bool is_pure_math(const CallExpr *call, const SourceManager &sm) {
  const FunctionDecl *fd = call->getDirectCallee();
  if (!fd || !fd->getIdentifier() || !sm.isInSystemHeader(fd->getLocation())) return false;
  std::string n = fd->getName().str();
  if (n.rfind("__", 0) == 0) n = n.substr(2);
  static const char *const known[] = {"exp",   "exp2", "exp10", "expm1", "log", "log2",  "log10", "log1p", "sqrt",
                                      "rsqrt", "cbrt", "fabs",  "abs",   "pow", "sin",   "cos",   "tan",   "tanh",
                                      "erf",   "fmax", "fmin",  "max",   "min", "floor", "ceil",  "round", "trunc"};
  for (const char *k : known)
    if (n == k || n == std::string(k) + "f") return true;
  return false;
}

// F(i) as text every thread can evaluate before the branch at `branch`,
// with i = __kbcc_j; nullopt when it is not.
std::optional<std::string> element_text(const KernelAst &k, const Expr *other, const VarDecl *var, const Stmt *branch,
                                        ElementReads &reads) {
  const SourceManager &sm = k.sources();
  bool bad = false;
  Subst subst;
  subst.vars[var] = "__kbcc_j";
  subst.expr = [&](const Expr *e) -> std::optional<std::string> {
    if (auto b = block_uniform_builtin(e)) return b;
    if (const auto *call = dyn_cast<CallExpr>(e); call && is_pure_math(call, sm)) {
      std::string text = call->getDirectCallee()->getName().str() + "(";
      for (unsigned a = 0; a < call->getNumArgs(); ++a) {
        auto arg = uniform_text(k, call->getArg(a), subst);
        bad |= !arg;
        text += (a ? ", " : "") + arg.value_or("");
      }
      return text + ")";
    }
    const auto *sub = dyn_cast<ArraySubscriptExpr>(e);
    if (!sub) return std::nullopt;
    const VarDecl *base = var_of(sub->getBase());
    bool before = base && sm.isBeforeInTranslationUnit(base->getLocation(), branch->getBeginLoc());
    bool shared = before && base == shared_array(sub->getBase());
    // A pointer parameter, or a local pointer into one, never assigned.
    bool global = before && base->getType()->isPointerType() && !assigns(k.kernel()->getBody(), base) &&
                  (isa<ParmVarDecl>(base) || (base->hasLocalStorage() && root_parameter(sub->getBase())));
    auto index = uniform_text(k, sub->getIdx(), subst);
    if (!(shared || global) || !index) {
      bad = true;
      return "";
    }
    if (shared) reads.shared.emplace_back(base, sub->getIdx());
    reads.global |= global;
    return base->getName().str() + "[" + *index + "]";
  };
  auto text = uniform_text(k, other, subst);
  return text && !bad ? text : std::nullopt;
}

// Whether the element reads of `reads` may see the shared cell `target`
// that the loop updates: unless it is buf[c] with c before the loop's start
// and every read of buf is at the loop variable.
bool reads_target(const Expr *target, const ElementReads &reads, const VarDecl *var, const Expr *start,
                  const ASTContext &ctx) {
  const VarDecl *buf = nullptr;
  const Expr *index = cell(target, buf);
  if (!index) return false; // not a shared array's cell
  auto c = constant_value(index, ctx), s = constant_value(start, ctx);
  bool before = c && s && *c < *s;
  for (const auto &[array, at] : reads.shared)
    if (array == buf && (!before || !names(at, var))) return true;
  return false;
}

// The updates of a serial loop's body; why it is not a list of them.
std::string serial_updates(const KernelAst &k, const CountedLoop &h, const Stmt *branch, Serial &out) {
  const ASTContext &ctx = k.context();
  ElementReads reads;
  std::vector<const Expr *> targets;
  for (const Stmt *st : statements(h.loop->getBody())) {
    if (isa<NullStmt>(st)) continue;
    auto u = match_combine(st, ctx);
    if (!u) return "its body is not a list of updates E op= F (op + | ^ & or a max/min function)";
    if (std::string why = serial_target(k, u->target, h.var); !why.empty()) return why;
    QualType type = u->target->getType();
    if (!supported_element(type))
      return "it accumulates a type that has no shuffle (int, unsigned, long long, float, double)";
    if (!convertible_element(type, u->other->IgnoreImpCasts()->getType(), u->acc))
      return "it accumulates values of another type";
    for (const Expr *t : targets)
      if (same_expr(t->IgnoreParenImpCasts(), u->target->IgnoreParenImpCasts(), ctx))
        return "it updates one place twice";
    auto element = element_text(k, u->other, h.var, branch, reads);
    if (!element) return "an element is not computed from shared or global arrays at indexes every thread can compute";
    targets.push_back(u->target);
    out.updates.push_back({u->target, u->acc, *element, type_text(type, ctx)});
  }
  if (out.updates.empty()) return "its body is empty";
  out.reads_global = reads.global;
  out.reads_shared = !reads.shared.empty();
  for (const Expr *t : targets) {
    if (Place p = place_of(t); reads.global && (p == Place::Global || p == Place::Unknown))
      return "it reads global memory and accumulates into global memory";
    if (reads_target(t, reads, h.var, h.init, ctx)) return "it reads the cell it accumulates into";
    for (const Expr *other : targets)
      if (const VarDecl *v = var_of(other); v && t != other && refers_to(t, v))
        return "an accumulated place depends on another accumulator";
  }
  return {};
}

// The serial loop `top` of the branch `branch` (body[at]); why it is not one.
// `later` are the statements after the loop that may read its variable.
std::string match_serial_loop(const KernelAst &k, const Stmt *top, const Stmt *branch,
                              const std::vector<const Stmt *> &later, Serial &out) {
  const ForStmt *loop = loop_of(top);
  auto h = loop ? counted_loop(loop, true) : std::nullopt;
  if (!h) return "its loop is not for (i = S; i < N; ++i)";
  if (!isa<DeclStmt>(loop->getInit()))
    for (const Stmt *s : later)
      if (refers_to(s, h->var)) return "its loop variable is read after it";
  Subst none;
  none.expr = block_uniform_builtin;
  auto start = uniform_text(k, h->init, none);
  Subst at_j = none;
  at_j.vars[h->var] = "__kbcc_j";
  auto cond = uniform_text(k, loop->getCond(), at_j);
  if (!start || !cond) return "its bounds are not values every thread of the block has";
  out.branch = branch;
  out.loop = top;
  out.var_type = type_text(h->var->getType(), k.context());
  out.start = *start;
  out.cond = *cond;
  if (auto n = as_mapping_expr(h->bound)) out.length = h->inclusive ? "(" + *n + " + 1)" : *n;
  return serial_updates(k, *h, branch, out);
}

// The serial reductions in thread 0's branch at body[at], appended to `out`;
// why there are none ("" when there are).
std::string match_serials(const KernelAst &k, const std::vector<const Stmt *> &body, size_t at,
                          std::vector<Serial> &out) {
  bool barrier = at > 0 && is_syncthreads(body[at - 1]);
  auto list = statements(cast<IfStmt>(body[at])->getThen());
  std::string why = "thread 0's branch has no loop at its top level";
  bool wrote_shared = false, wrote_global = false;
  size_t found = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (loop_of(list[i])) {
      std::vector<const Stmt *> later(list.begin() + static_cast<long>(i) + 1, list.end());
      later.insert(later.end(), body.begin() + static_cast<long>(at) + 1, body.end());
      Serial s;
      std::string w = match_serial_loop(k, list[i], body[at], later, s);
      if (w.empty() && s.reads_shared && !barrier) w = "it reads the block's cells without a barrier before the branch";
      if (w.empty() && s.reads_shared && wrote_shared) w = "the branch may write shared memory before it";
      if (w.empty() && s.reads_global && wrote_global) w = "the branch may write global memory before it";
      if (w.empty()) {
        out.push_back(std::move(s));
        ++found;
      } else if (found == 0) {
        why = "thread 0's loop is not a reduction: " + w;
      }
    }
    wrote_shared |= may_write(list[i], true);
    wrote_global |= may_write(list[i], false);
  }
  return found > 0 ? "" : why;
}

// ---- The plan --------------------------------------------------------------

struct Plan {
  std::vector<Collective> collectives;
  std::vector<Serial> serials;
  std::optional<Merge> merge; // for the only collective, a reduction
  bool floating_sum = false;
  std::string reduction_length; // of the floating sums, in the launch-mapping language
  int64_t min_block = 32;       // the blocks the collectives' fast path takes
  int64_t max_block = 1024;
};

// `a` and `b` (lengths in the launch-mapping language) as the longer one.
std::string longer(const std::string &a, const std::string &b) {
  return a.empty() || a == b ? b : "max(" + a + ", " + b + ")";
}

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
  bool guarded = false;
  std::vector<const Stmt *> list = block_statements(body, guarded);
  Plan plan;
  std::string first_why, serial_why;
  for (size_t i = 0; i < list.size(); ++i) {
    // A thread that has returned takes no part in a shuffle of the full warp
    // (unless its whole block did).
    bool returned = std::any_of(list.begin(), list.begin() + static_cast<long>(i),
                                [](const Stmt *s) { return has_return(s) && !is_block_exit(s); });
    if (is_thread_zero_branch(list[i], frame)) {
      std::string why =
          returned ? "a thread may return before thread 0's branch" : match_serials(k, list, i, plan.serials);
      if (serial_why.empty()) serial_why = why;
      continue;
    }
    const ForStmt *loop = loop_of(list[i]);
    Collective c;
    auto written_why = loop ? std::nullopt : match_written(list, i, frame, k.context(), c);
    bool written = written_why.has_value();
    if (!written && (!loop || !has_barrier(loop->getBody()))) continue;
    const char *what = written ? "the steps written out with barriers are not a block reduction: "
                               : "the loop with barriers is not a block reduction or scan: ";
    if (returned || has_return(list[i])) {
      if (first_why.empty())
        first_why = written ? "a thread may return before the steps with barriers"
                            : "a thread may return before the loop with barriers";
      continue;
    }
    std::string why = written ? *written_why : match_loop(list, i, k.context(), c);
    if (why.empty()) why = complete_collective(body, list, i, frame, k.context(), c);
    if (!why.empty()) {
      if (first_why.empty()) first_why = what + why;
      continue;
    }
    for (const auto &[buf, acc] : combined(c)) {
      QualType element = buf->getType()->getAsArrayTypeUnsafe()->getElementType();
      if (element->isRealFloatingType() && acc.kind == Accumulation::Sum) {
        plan.floating_sum = true;
        plan.reduction_length = longer(plan.reduction_length, "1024");
      }
    }
    plan.collectives.push_back(c);
    plan.min_block = std::max(plan.min_block, c.min_block);
    plan.max_block = std::min(plan.max_block, c.max_block);
    std::vector<const Stmt *> merged = list; // the statements after the first go with it
    merged.erase(merged.begin() + static_cast<long>(i) + 1, merged.begin() + static_cast<long>(i + c.span.size()));
    if (auto m = mergeable(body, merged, i, c, frame); m && c.more.empty()) plan.merge = m;
    i += c.span.size() - 1;
  }
  if (plan.min_block > plan.max_block)
    return not_applicable("its collectives are proven for no common block (one from " + std::to_string(plan.min_block) +
                          " threads, another up to " + std::to_string(plan.max_block) + ")");
  for (const Serial &s : plan.serials)
    for (const SerialUpdate &u : s.updates)
      if (u.acc.kind == Accumulation::Sum && u.target->getType()->isRealFloatingType()) {
        plan.floating_sum = true;
        plan.reduction_length = longer(plan.reduction_length, s.length.empty() ? "1024" : s.length);
      }
  if (plan.collectives.empty() && plan.serials.empty()) {
    if (!first_why.empty()) return not_applicable(first_why);
    if (!serial_why.empty()) return not_applicable(serial_why);
    return not_applicable("no loop with a __syncthreads() per step, nor a loop of thread 0 over the block's cells, at "
                          "the top of the kernel's body or of a branch the whole block takes");
  }
  // Merged blocks would share the branch of the first one.
  if (plan.collectives.size() != 1 || !plan.serials.empty() || guarded) plan.merge.reset();
  return plan;
}

// ---- The rewrite -----------------------------------------------------------

// The test of the blocks that take the collectives' fast path: one
// dimension, a power of two of plan.min_block to plan.max_block threads.
std::string fast_shape(const Plan &plan) {
  if (plan.min_block == plan.max_block)
    return "blockDim.x == " + std::to_string(plan.min_block) + "u && blockDim.y == 1u && blockDim.z == 1u";
  std::string at_most = plan.max_block < 1024 ? "u && blockDim.x <= " + std::to_string(plan.max_block) : "";
  return "(blockDim.x & (blockDim.x - 1u)) == 0u && blockDim.x >= " + std::to_string(plan.min_block) + at_most +
         "u && blockDim.y == 1u && blockDim.z == 1u";
}

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
std::string fast_reduce(const Accumulation &acc, const std::string &buf, int n, long items) {
  std::string v = "__kbcc_v" + std::to_string(n), w = "__kbcc_w" + std::to_string(n);
  bool idempotent = acc.kind == Accumulation::MaxMin || acc.kind == Accumulation::And;
  std::string rest = idempotent ? w + "[0]" : "(decltype(" + v + "))0";
  std::string gather;
  if (items > 1)
    gather = "  #pragma unroll\n  for (unsigned __kbcc_j = 1u; __kbcc_j < " + std::to_string(items) +
             "u; ++__kbcc_j) " + v + " = " + combine_text(acc, v, item_cell(buf, items, "__kbcc_j")) + ";\n";
  return "{\n  auto " + v + " = " + buf + "[threadIdx.x];\n" + gather + warp_reduce(acc, v) + "  __shared__ decltype(" +
         v + ") " + w + "[32];\n  if (threadIdx.x % 32u == 0u) " + w + "[threadIdx.x / 32u] = " + v +
         ";\n  __syncthreads();\n  if (threadIdx.x < 32u) {\n  " + v + " = threadIdx.x < blockDim.x / 32u ? " + w +
         "[threadIdx.x] : " + rest + ";\n" + warp_reduce(acc, v) + "  if (threadIdx.x == 0u) " + buf + "[0] = " + v +
         ";\n  }\n  __syncthreads();\n}";
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

// The pieces of a serial reduction's text for update `u`, numbered `id`.
struct SerialText {
  std::string total, share, step, warp, last;
};

SerialText serial_text(const Serial &s, const SerialUpdate &u, const std::string &id) {
  std::string p = "__kbcc_p" + id, w = "__kbcc_w" + id, zero = "(" + u.type + ")0";
  bool idempotent = u.acc.kind == Accumulation::MaxMin || u.acc.kind == Accumulation::And;
  SerialText t;
  t.total = "  " + u.type + " __kbcc_r" + id + " = " + zero + ";\n";
  t.share = "  " + u.type + " " + p + " = " + zero + ";\n";
  if (idempotent) // any element is a neutral start for an idempotent operation
    t.share += "  {\n  const " + s.var_type + " __kbcc_j = (" + s.var_type + ")(" + s.start + ");\n  if " + s.cond +
               " " + p + " = (" + u.type + ")(" + u.element + ");\n  }\n";
  t.step = "  " + p + " = " + combine_text(u.acc, p, "(" + u.type + ")(" + u.element + ")") + ";\n";
  t.warp = warp_reduce(u.acc, p) + "  __shared__ " + u.type + " " + w + "[32];\n  if (threadIdx.x % 32u == 0u) " + w +
           "[threadIdx.x / 32u] = " + p + ";\n";
  t.last = "  " + p + " = threadIdx.x < blockDim.x / 32u ? " + w +
           "[threadIdx.x] : " + (idempotent ? w + "[0]" : zero) + ";\n" + warp_reduce(u.acc, p) + "  __kbcc_r" + id +
           " = " + p + ";\n";
  return t;
}

// The block reduction of a serial loop's elements, placed before its branch,
// after which thread 0 holds each update's total in __kbcc_r<n>_<u>.
std::string serial_reduce(const Serial &s, const std::string &n) {
  SerialText all;
  for (size_t i = 0; i < s.updates.size(); ++i) {
    SerialText t = serial_text(s, s.updates[i], n + "_" + std::to_string(i));
    all.total += t.total;
    all.share += t.share;
    all.step += t.step;
    all.warp += t.warp;
    all.last += t.last;
  }
  std::string loop = "  for (" + s.var_type + " __kbcc_j = (" + s.var_type + ")((" + s.start + ") + threadIdx.x); " +
                     s.cond + "; __kbcc_j += blockDim.x) {\n" + all.step + "  }\n";
  return "const bool __kbcc_sf" + n + " = blockDim.x % 32u == 0u && blockDim.y == 1u && blockDim.z == 1u;\n" +
         all.total + "  if (__kbcc_sf" + n + ") {\n" + all.share + loop + all.warp +
         "  __syncthreads();\n  if (threadIdx.x < 32u) {\n" + all.last + "  }\n  }\n  ";
}

// What replaces a serial loop in thread 0's branch (the loop stays for other block shapes).
std::string serial_combine(const KernelAst &k, const Serial &s, const std::string &n) {
  std::string out = "if (__kbcc_sf" + n + ") {\n  const " + s.var_type + " __kbcc_j = (" + s.var_type + ")(" + s.start +
                    ");\n  if " + s.cond + " {\n";
  for (size_t i = 0; i < s.updates.size(); ++i) {
    std::string e = k.text(s.updates[i].target->getSourceRange()), total = "__kbcc_r";
    total.append(n).append("_").append(std::to_string(i));
    out.append("  ").append(e).append(" = ").append(combine_text(s.updates[i].acc, e, total)).append(";\n");
  }
  return out + "  }\n  } else {\n  ";
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
    for (const Stmt *s : c.span)
      out[s] = "";
  return out;
}

// The blocks the collectives are proven for, in words: "at least 64", "64 to 512", "256".
std::string block_range(const Plan &plan) {
  if (plan.max_block == 1024) return "at least " + std::to_string(plan.min_block);
  if (plan.min_block == plan.max_block) return std::to_string(plan.min_block);
  return std::to_string(plan.min_block) + " to " + std::to_string(plan.max_block);
}

// The smallest block that runs `items` cells per thread.
int64_t smallest_block(const Plan &plan, long items) { return std::max<int64_t>(32 * items, plan.min_block); }

// Whether every captured launch can run `items` cells per thread: a
// one-dimensional power-of-two block of smallest_block to plan.max_block
// threads.
bool launches_allow(const Plan &plan, const std::vector<launch::Launch> &launches, long items) {
  return std::all_of(launches.begin(), launches.end(), [&](const launch::Launch &l) {
    uint32_t b = l.block[0];
    return l.block[1] == 1 && l.block[2] == 1 && (b & (b - 1)) == 0 && b >= smallest_block(plan, items) &&
           b <= plan.max_block;
  });
}

// Whether launch `l` takes the rewrite's fast path: a one-dimensional block
// of a power of two of plan.min_block to plan.max_block threads for the
// collectives, of a multiple of 32 for thread 0's loops.
bool takes_fast_path(const Plan &plan, const launch::Launch &l) {
  uint32_t b = l.block[0];
  bool one_dim = l.block[1] == 1 && l.block[2] == 1;
  if (!plan.collectives.empty()) return one_dim && b >= plan.min_block && b <= plan.max_block && (b & (b - 1)) == 0;
  return one_dim && b % 32 == 0;
}

// The analysis of `in`'s kernel; not-applicable also when captured launches
// are known and none takes the fast path (the rewrite would run the code as
// written).
Expected<Plan> analyze_for(const Input &in) {
  auto plan = analyze(*in.ast);
  if (!plan || in.launches.empty()) return plan;
  if (std::none_of(in.launches.begin(), in.launches.end(),
                   [&](const launch::Launch &l) { return takes_fast_path(*plan, l); }))
    return not_applicable(plan->collectives.empty()
                              ? "no captured launch has a one-dimensional block of a multiple of 32 threads"
                              : "no captured launch has a one-dimensional block of a power of two of " +
                                    block_range(*plan) + " threads, which the shuffles need");
  return plan;
}

Expected<std::vector<Axis>> space(const Input &in) {
  auto plan = analyze_for(in);
  if (!plan) return plan.error();
  if (plan->merge) return std::vector<Axis>{{"factor", {"16", "8", "32", "4", "1"}}};
  if (!plan->serials.empty()) return std::vector<Axis>{};
  if (!virtual_threads_refusal(*in.ast, collective_statements(*plan)).empty()) return std::vector<Axis>{};
  Axis items{"items", {}};
  for (const char *v : {"4", "2", "8"})
    if (launches_allow(*plan, in.launches, std::stol(v))) items.values.emplace_back(v);
  if (items.values.empty()) return std::vector<Axis>{};
  items.values.emplace_back("1");
  return std::vector<Axis>{items};
}

// The mapping of a kernel whose threads hold `items` cells each.
launch::LaunchMapping items_mapping(const Plan &plan, long items) {
  launch::LaunchMapping m;
  m.block = {"block.x / " + std::to_string(items), "block.y", "block.z"};
  std::string sizes;
  for (int64_t b = smallest_block(plan, items); b <= plan.max_block; b *= 2)
    sizes += (sizes.empty() ? "" : " || ") + std::string("block.x == ") + std::to_string(b);
  m.preconditions = {sizes, "block.y == 1", "block.z == 1"};
  return m;
}

Expected<Output> apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto plan = analyze_for(in);
  if (!plan) return plan.error();
  long factor = plan->merge ? int_param(params, "factor", 16) : 1;
  long items = plan->merge ? 1 : int_param(params, "items", 1);
  if (factor < 1 || factor > 256) return not_applicable("factor out of range");
  if (items != 1 && items != 2 && items != 4 && items != 8 && items != 16)
    return not_applicable("items must be 1, 2, 4, 8 or 16");
  if (items > 1 && !plan->serials.empty())
    return not_applicable("a kernel with thread 0's reductions keeps its threads");
  Edits e;
  std::map<const Stmt *, std::string> rewritten;
  int n = 0;
  for (const Collective &c : plan->collectives) {
    size_t at = statement_begin(k, c.span.front()), end = statement_end(k, c.span.back());
    if (at == std::string::npos || end == std::string::npos) return not_applicable("the loop is written in a macro");
    std::string fast;
    if (c.kind == Collective::Scan) {
      fast = fast_scan(c, c.buf->getName().str(), n++, items);
    } else {
      for (const auto &[buf, acc] : combined(c))
        fast.append(fast_reduce(acc, buf->getName().str(), n++, items)).append("\n  ");
      fast.resize(fast.size() - 3); // the last "\n  "
      if (!c.more.empty()) fast.insert(0, "{\n  ").append("\n  }");
    }
    if (items > 1) {
      for (const Stmt *s : c.span)
        rewritten[s] = s == c.span.front() ? fast : "";
      continue;
    }
    e.insert(at, "if (" + fast_shape(*plan) + ") " + fast + " else {\n  ");
    e.insert(end, "\n  }");
  }
  for (const Serial &s : plan->serials) {
    size_t at = statement_begin(k, s.branch), begin = statement_begin(k, s.loop), end = statement_end(k, s.loop);
    if (at == std::string::npos || begin == std::string::npos || end == std::string::npos)
      return not_applicable("thread 0's loop is written in a macro");
    std::string id = std::to_string(n++);
    e.insert(at, serial_reduce(s, id));
    e.insert(begin, serial_combine(k, s, id));
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
  out.reduction_length = plan->reduction_length;
  if (items > 1) out.launch = items_mapping(*plan, items);
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
          "a block reduction or scan over a shared array with a barrier per step, as a loop or (reductions) "
          "written out a statement per step (a reduction's last warp may follow, through volatile accesses), "
          "becomes warp shuffles for the power-of-two blocks that running its index arithmetic proves; a "
          "reduction sent to one atomic merges "
          "`factor` blocks; otherwise each thread may hold `items` cells (block.x / items threads); thread 0's loop "
          "over the block's cells after a barrier becomes a reduction by every thread",
          true,
          space,
          apply};
}

} // namespace kbcc::transform
