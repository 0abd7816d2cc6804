// split_loop_across_warp (+ warp_shuffle_reduction, intra_block_parallel_reduction):
// a thread-per-item kernel whose item loops over an inner range becomes
// group-per-item: G lanes (a part of a warp, a warp, or a whole block) share
// each inner loop, lane l taking iterations l, l+G, ...; accumulations into
// scalars (sum, min/max, bitwise) and selections of a best element with
// what goes with it (argmax: by value, then by the iteration the loop would
// keep) combine across the group with shuffles (and shared memory across
// warps) and are broadcast to every lane; a running accumulation each
// iteration reads (a prefix sum) is scanned across the lanes chunk by
// chunk; stores
// outside the shared loops happen once per item (lane 0), with a group
// barrier before later loads. The group's lanes are consecutive threads
// (order=lanes), or, for loops that read a column (X[t * S + i], i the item),
// `items` apart so that consecutive threads take consecutive items and a
// warp's reads at one step are contiguous (order=items).
//
// Legal when: builtins appear only in the x global index (or nowhere: a
// serial kernel, which launched as one thread is one item, whose group is
// the block); no barriers, warp operations or shared memory; each shared
// loop is a counted loop whose scalar writes are recognised accumulations,
// selections or a scan, without return/break/goto, whose stores move with
// the loop variable and whose loads of a stored array
// read the same element; statements outside shared loops that store are
// expression statements. Floating-point accumulations reassociate. With
// order=items, a group spans warps and combines through shared memory with
// block barriers, so the shared loops and the stores outside them must sit at
// the top level of the body (or of its last statement `if (C) { ... }`), where
// every thread that has not returned (or failed C) reaches them; exited
// threads do not hold a barrier up. With nest=flat, a shared loop whose body
// is one counted loop with a fixed range, that only accumulates, runs its
// (outer, inner) pairs as one range across the lanes; with nest=inner, the
// lanes share the inner loop of such a nest (its range may depend on the
// outer variable, declarations may precede it) and combine once after it;
// with nest=deep, the lanes share the deepest loop of a longer chain of such
// nests (three loops or more), each lane running the loops above it.
// With cluster=C (sm_90 and later, a block per item), C blocks of a
// thread-block cluster share each item: block r's lane l takes iterations
// r * lanes + l, r * lanes + l + C * lanes, ...; each block combines its
// lanes, then every block combines the cluster's C block partials in rank
// order through distributed shared memory, so all hold the same result, and
// only block 0 stores. The cluster's blocks share the item, so every branch
// outside the shared loops is the same in all of them and each reaches the
// same cluster barriers.
#include "cache/variant.h"
#include "tooling/kernel.h"
#include "tooling/kernel_text.h"
#include "transform/captured.h"
#include "transform/edits.h"
#include "transform/index_space.h"
#include "transform/transform.h"
#include "transform/uniform.h"

#include "clang/AST/StmtVisitor.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <map>

namespace kbcc::transform {
using namespace clang;

namespace {

// Which loop of a nest the lanes share, and each value's name.
enum class Nest { Outer, Flat, Inner, Deep };
constexpr const char *kNestNames[] = {"outer", "flat", "inner", "deep"};

// One way of sharing the shared loops' nests: whether some shared loop
// offers it (nest=outer: always), the most steps of a loop its lanes stride
// when each runs a constant count (else -1), and the shared loops' trip
// counts in the mapping language (what a reassociated sum reorders).
struct Form {
  bool offered = false;
  long most_steps = 0;
  std::vector<std::string> trip_counts;
};

// How the kernel's statements are treated.
struct Plan {
  IndexSpace space;
  struct Loop {
    CountedLoop loop;
    std::vector<Accumulation> accs;
    std::vector<Selection> sels;
    std::optional<Accumulation> scan;        // a running accumulation its iteration reads (scan_of)
    const Expr *term = nullptr;              // the scan's new term
    std::optional<CountedLoop> inner;        // the loop its body is, when the two can run as one range (flat_inner)
    std::optional<CountedLoop> inner_shared; // its inner loop, when the lanes can share it instead (shared_inner)
    std::vector<CountedLoop> deeper;         // loops below that one they can share instead (shared_deeper)
  };
  std::vector<Loop> loops;         // shared across the group
  std::vector<const Stmt *> lane0; // stores outside shared loops
  bool reads = false;              // the kernel reads memory (barriers after stores)
  bool float_reduction = false;    // some shared reduction is floating point
  std::array<Form, 4> forms;       // by Nest
  std::set<std::string> size_params;
  std::set<std::string> nest_size_params; // also read by the bounds of those inner loops
  bool top_level = true;                  // the shared loops and lane-0 statements are top-level statements of the body
  bool columns = false;                   // a shared loop reads X[t * S + i]: items-major groups read it contiguously
  bool scans = false;                     // a shared loop is a scan: groups stay within a warp, lanes consecutive
  std::string unshared;                   // why the first loop that cannot be shared cannot
  const Expr *inner_bound = nullptr;      // the first inner loop the lanes can share's bound (nest=inner)
  bool serial = false;                    // the kernel reads no builtin (serial_space): one item, as one thread
  Form &form(Nest n) { return forms[static_cast<size_t>(n)]; }
  const Form &form(Nest n) const { return forms[static_cast<size_t>(n)]; }
  // Some shared loop is a nest its lanes can share otherwise than by its outer loop.
  bool nested() const { return form(Nest::Flat).offered || form(Nest::Inner).offered; }
};

// How threads form groups: `lanes` per item, `items` per block; by_items: a
// group's lanes are `items` threads apart (else consecutive).
struct Groups {
  long lanes = 32, items = 1;
  bool by_items = false;
  Nest nest = Nest::Outer;
  long cluster = 1; // blocks of a thread-block cluster per item
  long block() const { return lanes * items; }
  // The thread's position in the shared range and the step between its
  // iterations.
  std::string slot() const { return cluster > 1 ? "__kbcc_slot" : "__kbcc_lane"; }
  long stride() const { return lanes * cluster; }
  // Lanes of one group in one warp.
  long per_warp() const { return by_items ? std::max(1L, 32 / items) : std::min(lanes, 32L); }
  bool spans_warps() const { return lanes > per_warp(); }
};

// Coefficient of `var` in `e` is a non-zero literal or a parameter: stores at
// e are distinct for distinct var.
bool moves_with(const Expr *e, const VarDecl *var) {
  e = e->IgnoreParenCasts();
  if (const auto *ref = dyn_cast<DeclRefExpr>(e)) return ref->getDecl() == var;
  const auto *b = dyn_cast<BinaryOperator>(e);
  if (!b) return false;
  bool l = refers_to(b->getLHS(), var), r = refers_to(b->getRHS(), var);
  switch (b->getOpcode()) {
  case BO_Add:
  case BO_Sub:
    return l != r && moves_with(l ? b->getLHS() : b->getRHS(), var);
  case BO_Mul: {
    if (l == r) return false;
    const Expr *other = (l ? b->getRHS() : b->getLHS())->IgnoreParenCasts();
    const Expr *with = l ? b->getLHS() : b->getRHS();
    bool nonzero_literal = isa<IntegerLiteral>(other) && !cast<IntegerLiteral>(other)->getValue().isZero();
    bool parameter = isa<DeclRefExpr>(other) && isa<ParmVarDecl>(cast<DeclRefExpr>(other)->getDecl());
    return (nonzero_literal || parameter) && moves_with(with, var);
  }
  default:
    return false;
  }
}

// The address expression of a memory lvalue: base and index of a[i], p of *p.
std::pair<const Expr *, const Expr *> address_of(const Expr *lvalue) {
  lvalue = lvalue->IgnoreParenImpCasts();
  if (const auto *sub = dyn_cast<ArraySubscriptExpr>(lvalue)) return {sub->getBase(), sub->getIdx()};
  if (const auto *u = dyn_cast<UnaryOperator>(lvalue); u && u->getOpcode() == UO_Deref)
    return {u->getSubExpr(), nullptr};
  return {nullptr, nullptr};
}

// Why the memory accesses of `loop` forbid sharing it, or "".
std::string memory_conflict(const CountedLoop &cl, const ASTContext &ctx) {
  std::vector<const Expr *> stores, loads;
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s) return;
    if (const auto *b = dyn_cast<BinaryOperator>(s);
        b && b->isAssignmentOp() && writes_memory(s) && !isa<DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts()))
      stores.push_back(b->getLHS());
    if (const auto *c = dyn_cast<ImplicitCastExpr>(s); c && c->getCastKind() == CK_LValueToRValue)
      loads.push_back(c->getSubExpr());
    for (const Stmt *child : s->children())
      visit(child);
  };
  visit(cl.loop->getBody());
  for (const Expr *st : stores) {
    auto [base, index] = address_of(st);
    if (!base) return "it stores through an expression kbcc cannot follow";
    const ParmVarDecl *root = root_parameter(base);
    if (!root) return "it stores through a pointer not derived from a parameter";
    const Expr *moving = index ? index : base;
    if (!moves_with(moving, cl.var) && !refers_to(base, cl.var)) return "its stores do not move with the loop variable";
    for (const Expr *ld : loads) {
      auto [lb, li] = address_of(ld);
      if (!lb) continue;
      if (root_parameter(lb) == root && !same_expr(ld, st, ctx))
        return "it reads elements of an array it writes at other indexes";
    }
  }
  return {};
}

// The term an accumulation adds: E of s += E, s = s + E, s = E + s,
// s = f(s, E), s |= E, ...; nullptr for s -= E, ++s and the like.
const Expr *term_of(const Accumulation &a) {
  const VarDecl *v = a.var;
  if (const auto *c = dyn_cast<CompoundAssignOperator>(a.stmt))
    return c->getOpcode() == BO_SubAssign ? nullptr : c->getRHS();
  const auto *b = dyn_cast<BinaryOperator>(a.stmt);
  if (!b || b->getOpcode() != BO_Assign) return nullptr;
  const Expr *rhs = b->getRHS()->IgnoreParenImpCasts();
  if (const auto *add = dyn_cast<BinaryOperator>(rhs); add && add->getOpcode() == BO_Add)
    return names(add->getLHS(), v) ? add->getRHS() : add->getLHS();
  if (const auto *call = dyn_cast<CallExpr>(rhs); call && call->getNumArgs() == 2)
    return names(call->getArg(0), v) ? call->getArg(1) : call->getArg(0);
  return nullptr;
}

// A running accumulation that its iteration reads, as a row's prefix sum
// writes it: the loop's body is { s += E; S1; S2; ... } (or s = s + E,
// s = f(s, E), |=, &=, ^=), with s a local scalar declared outside the loop,
// E reading neither s nor the global index, the S_k expression statements
// that may read s but write no scalar declared outside the loop, no
// continue, and the loop variable declared in its header. Shared by lanes,
// each chunk of `lanes` iterations becomes an inclusive scan across them.
std::optional<Plan::Loop> scan_of(const CountedLoop &cl, const ASTContext &ctx) {
  const auto *body = dyn_cast<CompoundStmt>(cl.loop->getBody());
  if (!body || body->size() < 2 || !isa<DeclStmt>(cl.loop->getInit()) || continues(body)) return std::nullopt;
  const auto *first = dyn_cast<BinaryOperator>(body->body_front());
  const VarDecl *v = first && first->isAssignmentOp() ? outer_scalar(first->getLHS(), cl.loop, ctx) : nullptr;
  if (!v || !v->getType()->isArithmeticType()) return std::nullopt;
  auto acc = accumulation_in(first, v, ctx);
  const Expr *term = acc ? term_of(*acc) : nullptr;
  if (!term || refers_to(term, v) || !index_uses(term).global.empty() || !index_uses(cl.bound).global.empty())
    return std::nullopt;
  for (const Stmt *st : llvm::drop_begin(body->body()))
    if (!isa<Expr>(st) || assigns(st, v)) return std::nullopt;
  auto others = accumulations(cl.loop, ctx, {v}); // nothing else outside the loop is written
  if (!others || !others->empty()) return std::nullopt;
  Plan::Loop l;
  l.loop = cl;
  l.scan = acc;
  l.term = term;
  return l;
}

// Whether `loop`'s body writes an element of a thread-private array (a local
// array, or an array member of a local struct) declared outside it: shared,
// each lane would hold only the elements of its own iterations.
bool writes_private_array(const ForStmt *loop, const ASTContext &ctx) {
  auto outer_private = [&](const Expr *lhs) {
    const Expr *e = lhs->IgnoreParenImpCasts();
    if (!isa<ArraySubscriptExpr>(e) || is_memory(e)) return false;
    for (;;) {
      e = e->IgnoreParenImpCasts();
      if (const auto *sub = dyn_cast<ArraySubscriptExpr>(e))
        e = sub->getBase();
      else if (const auto *m = dyn_cast<MemberExpr>(e))
        e = m->getBase();
      else
        break;
    }
    const VarDecl *v = var_of(e);
    return v && !declared_in(v, loop, ctx);
  };
  bool found = false;
  walk(loop->getBody(), [&](const Stmt *x) {
    if (const auto *b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp()) found |= outer_private(b->getLHS());
    if (const auto *u = dyn_cast<UnaryOperator>(x); u && u->isIncrementDecrementOp())
      found |= outer_private(u->getSubExpr());
    for (const Expr *arg : reference_arguments(x))
      found |= outer_private(arg);
  });
  return found;
}

// Whether `for` can be shared; `why` says why not.
std::optional<Plan::Loop> shared_loop(const ForStmt *f, const ASTContext &ctx, std::string &why) {
  auto cl = counted_loop(f);
  if (!cl) {
    why = "not a counted loop (for (int i = a; i < b; ++i))";
    return std::nullopt;
  }
  if (has_return(f->getBody()) || has_break_or_goto(f->getBody())) {
    why = "the loop has return, break or goto";
    return std::nullopt;
  }
  if (writes_private_array(f, ctx)) {
    why = "the loop writes elements of a thread's own array declared outside it";
    return std::nullopt;
  }
  std::vector<Selection> sels = selections(f, ctx);
  std::set<const VarDecl *> selected;
  for (const Selection &sel : sels) {
    selected.insert(sel.best);
    selected.insert(sel.carried.begin(), sel.carried.end());
  }
  auto accs = accumulations(f, ctx, selected);
  std::string conflict = memory_conflict(*cl, ctx);
  if (!accs && conflict.empty())
    if (auto scan = scan_of(*cl, ctx)) return scan;
  if (!accs) {
    why = "the loop writes a scalar declared outside it other than by accumulation, selection of its best element "
          "or a scan";
    return std::nullopt;
  }
  if (!conflict.empty()) {
    why = conflict;
    return std::nullopt;
  }
  Plan::Loop l;
  l.loop = *cl;
  l.accs = *accs;
  l.sels = sels;
  return l;
}

// Walks the body: loops that can be shared are; other statements that store
// are lane-0 statements. `nested`: under a condition or a loop of the body.
std::string plan_statements(const Stmt *s, const ASTContext &ctx, Plan &plan, bool nested = false) {
  if (!s) return {};
  if (const auto *f = dyn_cast<ForStmt>(s)) {
    std::string why;
    if (auto loop = shared_loop(f, ctx, why)) {
      plan.loops.push_back(*loop);
      plan.top_level = plan.top_level && !nested;
      return {};
    }
    if (writes_memory(f->getInit()) || writes_memory(f->getCond()) || writes_memory(f->getInc()))
      return "a loop that cannot be shared (" + why + ") stores in its header";
    if (plan.unshared.empty()) plan.unshared = why;
    return plan_statements(f->getBody(), ctx, plan, true);
  }
  if (const auto *c = dyn_cast<CompoundStmt>(s)) {
    const IfStmt *work = nested ? nullptr : work_block(c);
    for (const Stmt *x : c->body()) {
      // A top-level block's work block: a thread failing its test reaches no
      // later statement, as if it returned.
      if (const auto *i = dyn_cast<IfStmt>(x); i && i == work && !writes_memory(i->getCond())) {
        if (std::string e = plan_statements(i->getThen(), ctx, plan, false); !e.empty()) return e;
        continue;
      }
      if (std::string e = plan_statements(x, ctx, plan, nested); !e.empty()) return e;
    }
    return {};
  }
  if (const auto *i = dyn_cast<IfStmt>(s)) {
    if (writes_memory(i->getCond())) return "a condition stores to memory";
    if (std::string e = plan_statements(i->getThen(), ctx, plan, true); !e.empty()) return e;
    return plan_statements(i->getElse(), ctx, plan, true);
  }
  for (const auto *loop : {dyn_cast<WhileStmt>(s) ? cast<WhileStmt>(s)->getBody() : nullptr,
                           dyn_cast<DoStmt>(s) ? cast<DoStmt>(s)->getBody() : nullptr})
    if (loop) {
      if (writes_memory(isa<WhileStmt>(s) ? cast<WhileStmt>(s)->getCond() : cast<DoStmt>(s)->getCond()))
        return "a loop condition stores to memory";
      return plan_statements(loop, ctx, plan, true);
    }
  if (!writes_memory(s)) return {};
  if (isa<Expr>(s)) {
    plan.lane0.push_back(s);
    plan.top_level = plan.top_level && !nested;
    return {};
  }
  return "a declaration or statement that stores to memory cannot run once per item";
}

// The number of steps of counted loop `l` when its start and bound are
// integer constants (`for (v = 0; v < 4u; ++v)`), else -1.
long constant_steps(const CountedLoop &l, const ASTContext &ctx) {
  Expr::EvalResult init, bound;
  if (!l.init || !l.bound || !l.init->EvaluateAsInt(init, ctx) || !l.bound->EvaluateAsInt(bound, ctx)) return -1;
  int64_t n = bound.Val.getInt().getExtValue() - init.Val.getInt().getExtValue() + (l.inclusive ? 1 : 0);
  return std::max<int64_t>(n, 0);
}

// Whether `index` is a sum with the item's index as one term (an index
// variable, or the idiom, with a + sign) and `var` times a factor other than
// 1 in another: X[t * S + i], a column walked down by the loop.
bool column_read(const Expr *index, const VarDecl *var, const std::vector<const VarDecl *> &indexes) {
  bool item = false, strided = false;
  std::function<void(const Expr *, bool)> visit = [&](const Expr *e, bool plus) {
    e = e->IgnoreParenCasts();
    if (const auto *b = dyn_cast<BinaryOperator>(e); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub)) {
      visit(b->getLHS(), plus);
      visit(b->getRHS(), b->getOpcode() == BO_Add ? plus : !plus);
      return;
    }
    const VarDecl *v = var_of(e);
    if (plus && ((v && std::find(indexes.begin(), indexes.end(), v) != indexes.end()) ||
                 (as_global_index(e) && as_global_index(e)->dim == 0)))
      item = true;
    if (const auto *m = dyn_cast<BinaryOperator>(e); m && m->getOpcode() == BO_Mul && refers_to(m, var)) {
      const Expr *other = refers_to(m->getLHS(), var) ? m->getRHS() : m->getLHS();
      const auto *lit = dyn_cast<IntegerLiteral>(other->IgnoreParenCasts());
      strided = strided || !lit || lit->getValue() != 1;
    }
  };
  visit(index, true);
  return item && strided;
}

// The inner loop of shared loop `l` when the two can run as one flattened
// range: `l`'s body is a single counted loop whose start and bound refer
// neither to `l`'s variable nor to a variable the nest writes and have no
// side effects (the nest is rectangular and its inner range fixed), and the
// nest accumulates without selections or a scan and stores nothing to
// memory (each lane then runs a set of (outer, inner) pairs with no other
// effect than its partials).
std::optional<CountedLoop> flat_inner(const Plan::Loop &l, const ASTContext &ctx) {
  if (l.scan || !l.sels.empty() || l.accs.empty()) return std::nullopt;
  const Stmt *body = l.loop.loop->getBody();
  if (const auto *c = dyn_cast<CompoundStmt>(body); c && c->size() == 1) body = c->body_front();
  const auto *f = dyn_cast<ForStmt>(body);
  auto inner = f ? counted_loop(f) : std::nullopt;
  if (!inner || writes_memory(l.loop.loop->getBody())) return std::nullopt;
  for (const Expr *e : {inner->init, inner->bound}) {
    if (e->HasSideEffects(ctx)) return std::nullopt;
    bool fixed = true;
    walk(e, [&](const Stmt *s) {
      const VarDecl *v = var_of(dyn_cast<Expr>(s));
      if (v && (v == l.loop.var || assigns(l.loop.loop->getBody(), v))) fixed = false;
    });
    if (!fixed) return std::nullopt;
  }
  return inner;
}

// The counted loop the body of `outer` is when the lanes can share it in
// `outer`'s place, its accumulations `accs` (shared_inner's rules).
std::optional<CountedLoop> inner_of(const ForStmt *outer, const std::vector<Accumulation> &accs,
                                    const ASTContext &ctx) {
  const Stmt *body = outer->getBody();
  std::vector<const DeclStmt *> decls;
  if (const auto *c = dyn_cast<CompoundStmt>(body)) {
    if (c->size() == 0) return std::nullopt;
    for (const Stmt *st : llvm::drop_end(c->body())) {
      const auto *d = dyn_cast<DeclStmt>(st);
      if (!d) return std::nullopt;
      decls.push_back(d);
    }
    body = c->body_back();
  }
  const auto *f = dyn_cast<ForStmt>(body);
  auto inner = f ? counted_loop(f) : std::nullopt;
  if (!inner) return std::nullopt;
  const Stmt *in = f->getBody();
  for (const DeclStmt *d : decls)
    for (const Decl *x : d->decls()) {
      const auto *v = dyn_cast<VarDecl>(x);
      if (!v || (v->getInit() && v->getInit()->HasSideEffects(ctx)) || assigns(in, v)) return std::nullopt;
    }
  for (const Accumulation &a : accs) {
    bool inside = false;
    walk(in, [&](const Stmt *s) { inside = inside || s == a.stmt; });
    if (!inside) return std::nullopt;
  }
  for (const Expr *e : {inner->init, inner->bound}) {
    if (e->HasSideEffects(ctx)) return std::nullopt;
    bool same = true;
    walk(e, [&](const Stmt *s) {
      const VarDecl *v = var_of(dyn_cast<Expr>(s));
      if (v && assigns(f, v)) same = false;
    });
    if (!same) return std::nullopt;
  }
  return inner;
}

// The inner loop of shared loop `l` when the group's lanes can share it
// instead, each lane running the whole outer loop and the partials combined
// once after the nest: `l`'s body is declarations then one counted loop (or
// that loop alone); the nest accumulates, only inside that loop, without
// selections or a scan, and stores nothing to memory; the declarations
// have no side effects and the inner loop assigns none of their variables
// (no value passes from one inner iteration to the next but the
// accumulations); the inner loop's start and bound have no side effects and
// read no variable the inner loop assigns (an accumulator, say), so every
// lane of a group sees the same range at each outer step, which may depend
// on the outer variable (a triangular nest).
std::optional<CountedLoop> shared_inner(const Plan::Loop &l, const ASTContext &ctx) {
  if (l.scan || !l.sels.empty() || l.accs.empty() || writes_memory(l.loop.loop->getBody())) return std::nullopt;
  return inner_of(l.loop.loop, l.accs, ctx);
}

// The loops below `l`'s shared inner loop that the lanes can share in its
// place, outermost first: each the loop the body of the one above is, by
// the rules of shared_inner applied level by level (nest=deep shares the
// last, every lane running the loops above it).
std::vector<CountedLoop> shared_deeper(const Plan::Loop &l, const ASTContext &ctx) {
  std::vector<CountedLoop> out;
  if (!l.inner_shared) return out;
  for (auto next = inner_of(l.inner_shared->loop, l.accs, ctx); next; next = inner_of(next->loop, l.accs, ctx))
    out.push_back(*next);
  return out;
}

Expected<Plan> analyze(const KernelAst &k) {
  auto space = index_space(k, /*allow_2d=*/false, /*allow_atomics=*/true, /*allow_batch=*/true);
  Plan plan;
  if (!space) {
    // A serial kernel (no builtin read), run as one thread: one item.
    auto serial = serial_space(k, /*allow_atomics=*/true);
    if (!serial) return space.error();
    space = std::move(serial);
    plan.serial = true;
  }
  plan.space = *space;
  if (std::string why = plan_statements(space->body, k.context(), plan); !why.empty()) return not_applicable(why);
  if (plan.loops.empty())
    return not_applicable("no loop of the item can be shared by a group of threads" +
                          (plan.unshared.empty() ? "" : " (the first: " + plan.unshared + ")"));
  plan.reads = reads_memory(space->body);
  std::vector<const VarDecl *> indexes = index_variables(space->body, 0);
  plan.form(Nest::Outer).offered = true;
  auto most = [](long &m, long steps) { m = steps < 0 || m < 0 ? -1 : std::max(m, steps); };
  for (Plan::Loop &l : plan.loops) {
    long steps = constant_steps(l.loop, k.context()), flat = steps, inner = steps;
    std::optional<std::string> trip = as_mapping_expr(l.loop.bound), nest_trip = trip;
    l.inner = flat_inner(l, k.context());
    l.inner_shared = shared_inner(l, k.context());
    if (const CountedLoop *in = l.inner ? &*l.inner : l.inner_shared ? &*l.inner_shared : nullptr) {
      long in_steps = constant_steps(*in, k.context());
      if (l.inner) flat = steps < 0 || in_steps < 0 ? -1 : steps * in_steps;
      auto bound = as_mapping_expr(in->bound);
      if (trip && bound) nest_trip = "(" + *trip + ") * (" + *bound + ")";
      auto q = integer_params(in->bound);
      plan.nest_size_params.insert(q.begin(), q.end());
      if (l.inner_shared) {
        inner = in_steps;
        if (!plan.form(Nest::Inner).offered) plan.inner_bound = in->bound;
      }
    }
    // With nest=deep the lanes stride the deepest loop of the nest they can
    // share, and the reordered terms are those of every loop down to it.
    l.deeper = shared_deeper(l, k.context());
    long deep = inner;
    std::optional<std::string> deep_trip = nest_trip;
    for (const CountedLoop &d : l.deeper) {
      deep = constant_steps(d, k.context());
      auto bound = as_mapping_expr(d.bound);
      if (deep_trip && bound) deep_trip = "(" + *deep_trip + ") * (" + *bound + ")";
      auto q = integer_params(d.bound);
      plan.nest_size_params.insert(q.begin(), q.end());
    }
    walk(l.loop.loop->getBody(), [&](const Stmt *s) {
      if (const auto *sub = dyn_cast<ArraySubscriptExpr>(s))
        plan.columns = plan.columns || column_read(sub->getIdx(), l.loop.var, indexes);
    });
    for (const Accumulation &a : l.accs)
      if (a.var->getType()->isRealFloatingType()) plan.float_reduction = true;
    if (l.scan) {
      plan.scans = true;
      plan.float_reduction = plan.float_reduction || l.scan->var->getType()->isRealFloatingType();
    }
    struct Way {
      Nest nest;
      bool offered;
      long steps;
      std::optional<std::string> trip;
    };
    for (const Way &w : {Way{Nest::Outer, true, steps, trip}, Way{Nest::Flat, l.inner.has_value(), flat, nest_trip},
                         Way{Nest::Inner, l.inner_shared.has_value(), inner, nest_trip},
                         Way{Nest::Deep, !l.deeper.empty(), deep, deep_trip}}) {
      Form &f = plan.form(w.nest);
      f.offered = f.offered || w.offered;
      most(f.most_steps, w.steps);
      if (w.trip && std::find(f.trip_counts.begin(), f.trip_counts.end(), *w.trip) == f.trip_counts.end())
        f.trip_counts.push_back(*w.trip);
    }
    auto p = integer_params(l.loop.bound);
    plan.size_params.insert(p.begin(), p.end());
  }
  plan.size_params.insert(space->bound_params.begin(), space->bound_params.end());
  return plan;
}

// What a group combines: partial variables (`fields`) and the statement
// that merges another lane's values of them (expressions, in order) into
// this lane's.
struct Combiner {
  std::vector<std::string> fields;
  std::function<std::string(const std::vector<std::string> &)> merge;
};

// The combiner of accumulation `a` into partial `p`.
Combiner accumulate(const Accumulation &a, const std::string &p) {
  return {{p}, [a, p](const std::vector<std::string> &o) { return p + " = " + combine_text(a, p, o[0]) + ";\n"; }};
}

// The combiner of selection `sel` into partials `fields`: its best value, the
// iteration that set it, then the carried variables. Another lane's values
// win with a better value, or an equal one from the iteration the loop
// would have kept (the earlier for a strict test, the later otherwise).
Combiner select(const Selection &sel, const std::vector<std::string> &fields) {
  return {fields, [sel, fields](const std::vector<std::string> &o) {
            std::string out = "{ ", take;
            for (size_t f = 0; f < fields.size(); ++f) {
              std::string x = "__kbcc_x" + std::to_string(f);
              out += "decltype(" + fields[f] + ") " + x + " = " + o[f] + "; ";
              take += fields[f] + " = " + x + "; ";
            }
            std::string better = sel.greater ? " > " : " < ", kept = sel.strict ? " < " : " > ";
            return out + "if (__kbcc_x0" + better + fields[0] + " || (__kbcc_x0 == " + fields[0] + " && __kbcc_x1" +
                   kept + fields[1] + ")) { " + take + "} }\n";
          }};
}

// A barrier of the thread's cluster, releasing its earlier writes (global
// and shared) to the cluster's threads and acquiring theirs.
std::string cluster_barrier() { return "__cluster_barrier_arrive(); __cluster_barrier_wait();"; }

// With clusters (g.cluster > 1), combines the block's partials of `c`,
// held by every lane, with the other blocks' of its cluster: lane 0 puts
// them in shared memory, and after a cluster barrier every block merges the
// C blocks' values in rank order (so all hold one result, bit for bit); a
// second barrier keeps each block's shared memory alive, and unchanged,
// until every block has read it. "" without clusters.
std::string cluster_reduce(const Combiner &c, const Groups &g, int index) {
  if (g.cluster <= 1) return "";
  std::string out = "{", store, first;
  std::vector<std::string> others;
  for (size_t f = 0; f < c.fields.size(); ++f) {
    std::string s = "__kbcc_d" + std::to_string(index) + "_" + std::to_string(f), T = "decltype(" + c.fields[f] + ")";
    out += " __shared__ " + T + " " + s + "[1];";
    store += s + "[0] = " + c.fields[f] + "; ";
    auto at = [&](const std::string &rank) {
      return "(*(" + T + " *)__cluster_map_shared_rank(" + s + ", " + rank + "))";
    };
    first += c.fields[f] + " = " + at("0u") + "; ";
    others.push_back(at("__kbcc_r"));
  }
  return out + "\nif (__kbcc_lane == 0) { " + store + "}\n" + cluster_barrier() + "\n" + first +
         "\nfor (unsigned __kbcc_r = 1; __kbcc_r < " + std::to_string(g.cluster) + "u; ++__kbcc_r) " + c.merge(others) +
         cluster_barrier() + " }\n";
}

// Combines the partials of `c` across the group, leaving the result in
// every lane: shuffles within a warp, then, for a group spanning warps, one
// set of partials per warp through shared memory, combined in warp order.
std::string group_reduce(const Combiner &c, const Groups &g, int index) {
  std::string out;
  auto shuffle = [&](const std::string &mask, const std::string &width) {
    std::vector<std::string> other;
    for (const std::string &f : c.fields)
      other.push_back("__shfl_xor_sync(" + mask + ", " + f + ", __kbcc_o" + width + ")");
    return c.merge(other);
  };
  if (!g.by_items) {
    long width = std::min(g.lanes, 32L);
    out += "for (int __kbcc_o = " + std::to_string(width / 2) + "; __kbcc_o > 0; __kbcc_o /= 2) " +
           shuffle(g.lanes >= 32 ? "0xffffffffu" : "__kbcc_mask", ", " + std::to_string(width));
  } else if (g.per_warp() > 1) { // the group's lanes in a warp are `items` apart
    out += "for (int __kbcc_o = 16; __kbcc_o >= " + std::to_string(g.items) + "; __kbcc_o /= 2) " +
           shuffle("__kbcc_mask", "");
  }
  if (!g.spans_warps()) return out;
  // Lane m of item r is thread r + m * items (by items) or r * lanes + m: the
  // first lane of each warp's share holds that warp's partials.
  std::string warps = std::to_string(g.lanes / g.per_warp());
  std::string first = g.by_items ? "threadIdx.x % " + std::to_string(g.items) + "u" : "0";
  std::string nth = g.by_items ? first + " + __kbcc_w * " + std::to_string(g.items * g.per_warp()) : "__kbcc_w";
  std::string size = std::to_string(g.by_items ? g.block() : g.lanes / 32);
  std::vector<std::string> nths;
  std::string store, load;
  for (size_t f = 0; f < c.fields.size(); ++f) {
    std::string s = "__kbcc_s" + std::to_string(index) + (f ? "_" + std::to_string(f) : "");
    out += (f ? " __shared__ decltype(" : "{ __shared__ decltype(") + c.fields[f] + ") " + s + "[" + size + "];";
    store += s + (g.by_items ? "[threadIdx.x]" : "[__kbcc_lane / 32]") + " = " + c.fields[f] + "; ";
    load += c.fields[f] + " = " + s + "[" + first + "]; ";
    nths.push_back(s + "[" + nth + "]");
  }
  out += "\n";
  if (c.fields.size() == 1) { // as the single-partial code has always been written
    store.pop_back();
    load.pop_back();
  }
  out += (g.by_items ? store : "if (__kbcc_lane % 32 == 0) " + (c.fields.size() > 1 ? "{ " + store + "}" : store)) +
         "\n__syncthreads();\n";
  out +=
      load + "\nfor (int __kbcc_w = 1; __kbcc_w < " + warps + "; ++__kbcc_w) " + c.merge(nths) + "__syncthreads(); }\n";
  return out + cluster_reduce(c, g, index);
}

std::string barrier(const Groups &g) {
  return g.cluster > 1 ? " " + cluster_barrier() : g.spans_warps() ? " __syncthreads();" : " __syncwarp(__kbcc_mask);";
}

// Rewrites a scan loop (scan_of) for groups within a warp: the loop steps
// by chunks of `lanes` iterations, lane l runs iteration chunk + l when it is
// in range, the terms are scanned across the lanes with __shfl_up_sync, each
// live lane's S_k see the carry combined with its prefix, and the carry
// takes the chunk's total from its last live lane; after the loop, s holds
// the carry in every lane (then a group barrier, as after any shared loop
// that stores, when the kernel reads memory).
Status share_scan(const KernelAst &k, const Plan::Loop &l, const Groups &g, bool reads, Edits &e) {
  const std::string &src = k.source();
  const Accumulation &a = *l.scan;
  const auto *cond = cast<BinaryOperator>(l.loop.loop->getCond()->IgnoreParenImpCasts());
  const auto *body = cast<CompoundStmt>(l.loop.loop->getBody());
  size_t begin = k.offset(l.loop.loop->getBeginLoc()), end = statement_end(k, l.loop.loop), cb = 0, ce = 0, ub = 0,
         ue = 0, bb = 0, be = 0, tb = 0, te = 0;
  size_t name = k.offset(l.loop.var->getLocation()), open = k.offset(body->getLBracLoc()),
         close = k.offset(body->getRBracLoc());
  if (begin == std::string::npos || end == std::string::npos || !k.span(cond->getLHS()->getSourceRange(), cb, ce) ||
      !k.span(a.stmt->getSourceRange(), ub, ue) || !k.span(l.loop.bound->getSourceRange(), bb, be) ||
      !k.span(l.term->getSourceRange(), tb, te) || name == std::string::npos || open == std::string::npos ||
      close == std::string::npos)
    return not_applicable("a scan loop is written in a macro");
  size_t ib = 0, ie = 0;
  if (!k.span(l.loop.loop->getInc()->getSourceRange(), ib, ie)) return not_applicable("a loop is written in a macro");
  std::string var = l.loop.var->getName().str(), s = a.var->getName().str(), G = std::to_string(g.lanes);
  std::string bound = "(" + src.substr(bb, be - bb) + ")", term = src.substr(tb, te - tb);
  std::string mask = g.lanes >= 32 ? "0xffffffffu" : "__kbcc_mask", T = "decltype(" + s + ")";
  std::string left = bound + " - (long long)__kbcc_c0" + (l.loop.inclusive ? " + 1" : "");
  e.insert(begin, "{ " + T + " __kbcc_carry = " + s + "; ");
  e.replace(name, name + var.size(), "__kbcc_c0");
  e.replace(cb, ce, "__kbcc_c0");
  e.replace(ib, ie, "__kbcc_c0 += " + G);
  e.insert(open + 1, " const decltype(__kbcc_c0) " + var + " = __kbcc_c0 + (decltype(__kbcc_c0))__kbcc_lane; " +
                         "const bool __kbcc_live = " + var + (l.loop.inclusive ? " <= " : " < ") + bound + ";");
  e.replace(ub, past_semicolon(src, ue),
            T + " __kbcc_e = __kbcc_live ? (" + T + ")(" + term + ") : (" + T + ")0;\n    for (int __kbcc_o = 1; " +
                "__kbcc_o < " + G + "; __kbcc_o *= 2) { " + T + " __kbcc_u = __shfl_up_sync(" + mask +
                ", __kbcc_e, __kbcc_o, " + G +
                "); if (__kbcc_lane >= (unsigned)__kbcc_o) __kbcc_e = " + combine_text(a, "__kbcc_u", "__kbcc_e") +
                "; }\n    const int __kbcc_n = (int)(" + left + " < " + G + " ? " + left + " : " + G +
                ");\n    const " + T + " __kbcc_t = __shfl_sync(" + mask + ", __kbcc_e, __kbcc_n - 1, " + G +
                ");\n    if (__kbcc_live) { " + s + " = " + combine_text(a, "__kbcc_carry", "__kbcc_e") + ";");
  e.insert(close, "} __kbcc_carry = " + combine_text(a, "__kbcc_carry", "__kbcc_t") + "; ");
  e.insert(end, " " + s + " = __kbcc_carry;" + (reads ? barrier(g) : "") + " }");
  return Status::ok();
}

// Adds to `e` the edits that write every reference to a variable of
// `names` in `s` as its partial, at offsets from `base` (the start of the
// text `e` edits). Errors: a reference in a macro.
Status rename_partials(const KernelAst &k, const Stmt *s, const std::map<const VarDecl *, std::string> &names, Edits &e,
                       size_t base = 0) {
  if (!s) return Status::ok();
  if (const auto *ref = dyn_cast<DeclRefExpr>(s)) {
    auto it = names.find(dyn_cast<VarDecl>(ref->getDecl()));
    if (it == names.end()) return Status::ok();
    size_t b = k.offset(ref->getLocation());
    if (b == std::string::npos || b < base) return not_applicable("an accumulator is used in a macro");
    e.replace(b - base, b - base + it->first->getName().size(), it->second);
    return Status::ok();
  }
  for (const Stmt *c : s->children())
    if (auto st = rename_partials(k, c, names, e, base); !st) return st;
  return Status::ok();
}

// The text of `x` with every reference to a variable of `names` written as
// its partial; nullopt when `x` is written in a macro.
std::optional<std::string> partials_text(const KernelAst &k, const Expr *x,
                                         const std::map<const VarDecl *, std::string> &names) {
  size_t b = 0, end = 0;
  Edits e;
  if (!k.span(x->getSourceRange(), b, end) || !rename_partials(k, x, names, e, b)) return std::nullopt;
  auto text = e.apply(k.source().substr(b, end - b));
  if (!text) return std::nullopt;
  return *text;
}

// Makes selection `sel`'s update also run `record` (the iteration it
// keeps): inside the if form's then-branch; in the ?: form, under a copy of
// its test (free of side effects) before the assignment, which still
// assigns.
Status record_iteration(const KernelAst &k, const Selection &sel, const std::string &record,
                        const std::map<const VarDecl *, std::string> &names, Edits &e) {
  const std::string &src = k.source();
  size_t tb = 0, te = 0;
  if (!k.span(sel.stmt ? sel.stmt->getThen()->getSourceRange() : sel.pick->getSourceRange(), tb, te))
    return not_applicable("a selection is written in a macro");
  if (sel.stmt) {
    e.insert(tb, "{ " + record + " ");
    e.insert(isa<CompoundStmt>(sel.stmt->getThen()) ? te : past_semicolon(src, te), " }");
    return Status::ok();
  }
  auto test = partials_text(k, cast<ConditionalOperator>(sel.pick->getRHS()->IgnoreParenImpCasts())->getCond(), names);
  if (!test) return not_applicable("a selection is written in a macro");
  e.insert(tb, "{ if (" + (sel.negated ? "!(" + *test + ")" : *test) + ") " + record + " ");
  e.insert(past_semicolon(src, te), " }");
  return Status::ok();
}

// Rewrites the headers of shared nest `l` (flat_inner) so that the group's
// lanes run its (outer, inner) pairs as one range of outer x inner steps,
// lane l taking steps l, l + lanes, ... (with clusters, from its slot and
// lanes times the cluster's blocks apart): `head` (text before the outer
// loop) gets the inner range's length `__kbcc_t` and the lane's position
// `__kbcc_k` in it, and skips the nest when the range is empty; the outer
// loop starts at the lane's row and advances that many steps at a time,
// carrying from the inner position; the inner loop runs its one step at
// position `__kbcc_k` (a flag joins its test, which holds there, and becomes
// its increment, so a `continue` in its body still reaches the outer
// increment).
// [ob, oe) and [ub, ue) are the spans of the outer loop's start and
// increment, as share_loop found them.
Status flatten_nest(const KernelAst &k, const Plan::Loop &l, const Groups &g, size_t ob, size_t oe, size_t ub,
                    size_t ue, std::string &head, Edits &e) {
  const std::string &src = k.source();
  const ForStmt *in = l.inner->loop;
  size_t ib = 0, ie = 0, bb = 0, be = 0, cb = 0, ce = 0, nb = 0, ne = 0;
  if (!k.span(l.inner->init->getSourceRange(), ib, ie) || !k.span(l.inner->bound->getSourceRange(), bb, be) ||
      !k.span(in->getCond()->getSourceRange(), cb, ce) || !k.span(in->getInc()->getSourceRange(), nb, ne))
    return not_applicable("a loop is written in a macro");
  std::string o = l.loop.var->getName().str(), i = l.inner->var->getName().str(), L = std::to_string(g.stride());
  std::string lo = src.substr(ib, ie - ib), hi = src.substr(bb, be - bb), slot = g.slot();
  head += "const long long __kbcc_t = (long long)(" + hi + ") - (long long)(" + lo + ")" +
          (l.inner->inclusive ? " + 1" : "") + "; long long __kbcc_k = __kbcc_t > 0 ? (long long)" + slot +
          " % __kbcc_t : 0; int __kbcc_once = 1; if (__kbcc_t > 0) ";
  e.replace(ob, oe, "(" + src.substr(ob, oe - ob) + ") + (decltype(" + o + "))((long long)" + slot + " / __kbcc_t)");
  e.replace(ub, ue,
            "(" + o + " += (decltype(" + o + "))(" + L + " / __kbcc_t), __kbcc_k += " + L +
                " % __kbcc_t, __kbcc_once = 1, __kbcc_k >= __kbcc_t ? (void)(__kbcc_k -= __kbcc_t, ++" + o +
                ") : (void)0)");
  e.replace(ib, ie, "(" + lo + ") + (decltype(" + i + "))__kbcc_k");
  e.replace(cb, ce, "__kbcc_once && (" + src.substr(cb, ce - cb) + ")");
  e.replace(nb, ne, "__kbcc_once = 0");
  return Status::ok();
}

// Rewrites one shared loop.
Status share_loop(const KernelAst &k, const Plan::Loop &l, const Groups &g, int &partials, bool reads, Edits &e) {
  if (l.scan) return share_scan(k, l, g, reads, e);
  const std::string &src = k.source();
  size_t begin = k.offset(l.loop.loop->getBeginLoc()), end = statement_end(k, l.loop.loop), ib = 0, ie = 0, cb = 0,
         ce = 0;
  if (begin == std::string::npos || end == std::string::npos || !k.span(l.loop.init->getSourceRange(), ib, ie) ||
      !k.span(l.loop.loop->getInc()->getSourceRange(), cb, ce))
    return not_applicable("a loop is written in a macro");
  std::string var = l.loop.var->getName().str();
  std::string head = "{ ", tail;
  std::map<const VarDecl *, std::string> names;
  for (const Accumulation &a : l.accs) {
    if (names.count(a.var)) continue;
    std::string p = "__kbcc_p" + std::to_string(partials++);
    names[a.var] = p;
    std::string v = a.var->getName().str();
    bool from_value = a.kind == Accumulation::And || a.kind == Accumulation::MaxMin;
    head += "decltype(" + v + ") " + p + " = " + (from_value ? v : "(decltype(" + v + "))0") + "; ";
    tail += group_reduce(accumulate(a, p), g, partials);
    switch (a.kind) {
    case Accumulation::Sum:
      tail += v + " += " + p + ";\n";
      break;
    case Accumulation::Or:
      tail += v + " |= " + p + ";\n";
      break;
    case Accumulation::Xor:
      tail += v + " ^= " + p + ";\n";
      break;
    default:
      tail += v + " = " + p + ";\n";
    }
  }
  // A selection's partials start from its variables, with no iteration yet;
  // its update records the iteration.
  for (const Selection &sel : l.sels) {
    std::string iteration = "__kbcc_p" + std::to_string(partials++), back;
    std::vector<const VarDecl *> vars = {sel.best};
    vars.insert(vars.end(), sel.carried.begin(), sel.carried.end());
    std::vector<std::string> fields;
    for (const VarDecl *v : vars) {
      std::string p = "__kbcc_p" + std::to_string(partials++), name = v->getName().str();
      names[v] = p;
      head += "decltype(" + name + ") " + p + " = " + name + "; ";
      back += name + " = " + p + ";\n";
      fields.push_back(p);
    }
    fields.insert(fields.begin() + 1, iteration);
    head += "long long " + iteration + " = " + (sel.strict ? "9223372036854775807LL" : "(-9223372036854775807LL - 1)") +
            "; ";
    tail += group_reduce(select(sel, fields), g, partials) + back;
    if (Status st = record_iteration(k, sel, iteration + " = " + var + ";", names, e); !st) return st;
  }
  // References to accumulators inside the loop now name the partials.
  if (auto st = rename_partials(k, l.loop.loop->getBody(), names, e); !st) return st;
  if (g.nest == Nest::Flat && l.inner) {
    if (auto st = flatten_nest(k, l, g, ib, ie, cb, ce, head, e); !st) return st;
  } else {
    // The lanes stride the loop, with nest=inner its inner loop, with
    // nest=deep the deepest loop they can share.
    const CountedLoop &strided = g.nest == Nest::Deep && !l.deeper.empty()                           ? l.deeper.back()
                                 : (g.nest == Nest::Inner || g.nest == Nest::Deep) && l.inner_shared ? *l.inner_shared
                                                                                                     : l.loop;
    if (&strided != &l.loop &&
        (!k.span(strided.init->getSourceRange(), ib, ie) || !k.span(strided.loop->getInc()->getSourceRange(), cb, ce)))
      return not_applicable("a loop is written in a macro");
    std::string v = strided.var->getName().str();
    e.replace(ib, ie, "(" + src.substr(ib, ie - ib) + ") + (decltype(" + v + "))" + g.slot());
    e.replace(cb, ce, v + " += " + std::to_string(g.stride()));
  }
  e.insert(begin, head);
  bool stores = writes_memory(l.loop.loop->getBody());
  e.insert(end, "\n" + tail + (stores && reads ? barrier(g) : "") + " }");
  return Status::ok();
}

// The most items a captured launch of `in` has work for: the least of the
// x guard bounds of `space` on each capture's arguments, times the launch's
// extents in y and z (a batch); nullopt unless known on every capture.
std::optional<uint64_t> captured_items(const Input &in, const IndexSpace &space) {
  if (in.arguments.empty() || space.bounds[0].empty()) return std::nullopt;
  std::vector<std::optional<int64_t>> least(in.arguments.size());
  for (const std::string &b : space.bounds[0]) {
    auto values = captured_values(b, in);
    for (size_t i = 0; i < values.size(); ++i)
      if (values[i]) least[i] = std::min(least[i].value_or(*values[i]), *values[i]);
  }
  uint64_t most = 0;
  for (size_t i = 0; i < least.size(); ++i) {
    if (!least[i]) return std::nullopt;
    uint64_t batch = i < in.launches.size() ? uint64_t(in.launches[i].grid[1]) * in.launches[i].grid[2] : 1;
    most = std::max(most, uint64_t(std::max<int64_t>(*least[i], 0)) * batch);
  }
  return most;
}

// `values` (lanes per item, most promising first) for the captures of `in`:
// when they have too few items for a group of 32 lanes per item to give the
// GPU 2^17 threads, the fewest lanes that do (up to 1024: a block per item)
// come first, then twice as many, then `values`.
std::vector<std::string> lanes_for(const Input &in, const IndexSpace &space, std::vector<std::string> values) {
  constexpr uint64_t kBusyThreads = uint64_t(1) << 17;
  auto items = captured_items(in, space);
  if (!items || *items == 0 || *items * 32 >= kBusyThreads) return values;
  long first = 64;
  while (first < 1024 && *items * static_cast<uint64_t>(first) < kBusyThreads)
    first *= 2;
  std::vector<std::string> out{std::to_string(first)};
  if (first < 1024) out.push_back(std::to_string(first * 2));
  for (const std::string &v : values)
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

// The `nest` axis's values for a plan with nests, most promising first:
// flat, inner, outer; inner first when the captures' inner range is at
// least twice the first of `lanes` on each (every lane then has two or
// more steps of it, and a plain strided loop is cheaper than the carries
// of one range).
std::vector<std::string> nest_values(const Input &in, const Plan &plan, const std::vector<std::string> &lanes) {
  std::vector<std::string> out;
  for (Nest n : {Nest::Flat, Nest::Inner, Nest::Deep, Nest::Outer})
    if (plan.form(n).offered) out.push_back(kNestNames[static_cast<size_t>(n)]);
  if (!plan.form(Nest::Flat).offered || !plan.form(Nest::Inner).offered || lanes.empty()) return out;
  auto values = captured_values(plan.inner_bound, in);
  bool long_range = !values.empty();
  for (const auto &v : values)
    long_range = long_range && v && *v >= 2 * std::stol(lanes.front());
  if (long_range) std::swap(out[0], out[1]);
  return out;
}

// Why `g.cluster` blocks per item cannot run kernel `k` ("" when they
// can): clusters of 2, 4 or 8 blocks (the portable sizes), on sm_90 and
// later, each block one item's group (lanes > 32, order=lanes; so no scan,
// whose lanes stay in one warp), and no cluster size the kernel already
// declares.
std::string cluster_refusal(const KernelAst &k, const Groups &g) {
  if (g.cluster == 1) return "";
  if (g.cluster != 2 && g.cluster != 4 && g.cluster != 8) return "cluster must be 1, 2, 4 or 8";
  if (tooling::cuda_arch_number(k.arch()) < 900)
    return "clusters of blocks need sm_90 or later (the unit is parsed for " + k.arch() + ")";
  if (g.by_items || g.lanes <= 32) return "cluster needs a block per item (lanes above 32, order=lanes)";
  if (k.source().find("__cluster_dims__") != std::string::npos) return "the kernel already declares a cluster size";
  return "";
}

// `source` (a kernel definition) declaring clusters of `blocks` blocks in x.
std::string with_cluster_dims(const std::string &source, long blocks) {
  std::string out = source;
  if (auto t = tooling::parse_kernel_text(source))
    out.insert(t->name_pos, "__cluster_dims__(" + std::to_string(blocks) + ", 1, 1) ");
  return out;
}

// The `cluster` axis's values for captures of `in` with `items` items at
// most, `lanes` the first lanes value: when even a block of them per item
// leaves the GPU short of 2^18 threads (a full H100), the fewest blocks
// per item that reach it (up to 8) come first, then twice as many, then
// fewer, then 1; empty (no axis) when the captures have enough items, are
// unknown, or the unit's arch has no clusters.
std::vector<std::string> clusters_for(const KernelAst &k, std::optional<uint64_t> items, long lanes) {
  constexpr uint64_t kFullThreads = uint64_t(1) << 18;
  if (tooling::cuda_arch_number(k.arch()) < 900 || lanes <= 32 || !items || *items == 0 ||
      *items * uint64_t(lanes) >= kFullThreads)
    return {};
  long first = 2;
  while (first < 8 && *items * uint64_t(lanes * first) < kFullThreads)
    first *= 2;
  std::vector<std::string> out{std::to_string(first)};
  if (first < 8) out.push_back(std::to_string(first * 2));
  for (long c = first / 2; c >= 2; c /= 2)
    out.push_back(std::to_string(c));
  out.push_back("1");
  return out;
}

Expected<std::vector<Axis>> space(const Input &in) {
  auto plan = analyze(*in.ast);
  if (!plan) return plan.error();
  if (plan->scans && !plan->serial)
    return std::vector<Axis>{{"lanes", {"32", "16", "8"}}, {"block", {"256", "128", "512"}}};
  if (plan->serial || !plan->columns || !plan->top_level) {
    // A serial kernel's one item has the block (and a cluster's blocks) for
    // its group, the more lanes the better.
    std::vector<Axis> axes;
    if (plan->serial)
      axes.push_back({"lanes", plan->scans ? std::vector<std::string>{"32", "16", "8"}
                                           : std::vector<std::string>{"1024", "512", "256", "128", "64", "32"}});
    else
      axes = {{"lanes", lanes_for(in, plan->space, {"32", "128", "16", "256", "8", "64", "512"})},
              {"block", {"256", "128", "512"}}};
    auto items = plan->serial ? std::optional<uint64_t>(1) : captured_items(in, plan->space);
    if (auto c = clusters_for(*in.ast, items, std::stol(axes[0].values.front())); !c.empty())
      axes.push_back(Axis{"cluster", c});
    if (plan->nested()) axes.insert(axes.begin(), Axis{"nest", nest_values(in, *plan, axes[0].values)});
    return axes;
  }
  // A column read: items-major groups first, with as many lanes as keep a
  // narrow kernel's threads busy.
  return std::vector<Axis>{{"order", {"items", "lanes"}},
                           {"lanes", {"128", "32", "64", "256", "16", "8", "512"}},
                           {"block", {"1024", "512", "256", "128"}}};
}

// The text of the mask of the thread's group in its warp.
std::string group_mask(const Groups &g) {
  if (g.per_warp() >= 32) return "0xffffffffu";
  if (!g.by_items)
    return "((1u << " + std::to_string(g.lanes) + ") - 1u) << (threadIdx.x % 32u / " + std::to_string(g.lanes) +
           "u * " + std::to_string(g.lanes) + "u)";
  if (g.per_warp() == 1) return "(1u << (threadIdx.x % 32u))";
  unsigned every = 0; // bits 0, items, 2 * items, ...
  for (long b = 0; b < 32; b += g.items)
    every |= 1u << b;
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%08xu", every);
  return "(" + std::string(hex) + " << (threadIdx.x % " + std::to_string(g.items) + "u))";
}

Expected<Output> apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto plan = analyze(k);
  if (!plan) return plan.error();
  Groups g;
  g.lanes = int_param(params, "lanes", 32);
  long block = int_param(params, "block", 256);
  auto order = params.find("order");
  if (order != params.end() && order->second != "items" && order->second != "lanes")
    return not_applicable("order is not items or lanes");
  g.by_items = order != params.end() && order->second == "items";
  if (g.by_items && plan->serial) return not_applicable("a serial kernel's one item runs with order=lanes");
  if (auto nest = params.find("nest"); nest != params.end()) {
    const auto *at = std::find(std::begin(kNestNames), std::end(kNestNames), nest->second);
    if (at == std::end(kNestNames)) return not_applicable("nest is not flat, inner, deep or outer");
    g.nest = static_cast<Nest>(at - std::begin(kNestNames));
  }
  // Why each form is not offered, by Nest.
  static const char *const kNotOffered[] = {
      "",
      "no shared loop is a nest of two loops that can run as one range (a single counted loop as its body, with a "
      "fixed range, accumulating, storing nothing)",
      "no shared loop has an inner loop its lanes can share (declarations then one counted loop as its body, every "
      "accumulation in it, a range it does not change, storing nothing)",
      "no shared loop's inner loop has a loop below it its lanes can share (each level declarations then one counted "
      "loop, every accumulation in the deepest)"};
  const Form &form = plan->form(g.nest);
  if (!form.offered) return not_applicable(kNotOffered[static_cast<size_t>(g.nest)]);
  if (g.nest != Nest::Outer && g.by_items)
    return not_applicable("nest=flat, nest=inner and nest=deep run with order=lanes only");
  if (g.lanes < 2 || g.lanes > 1024 || (g.lanes & (g.lanes - 1)) != 0)
    return not_applicable("lanes must be a power of two");
  if (form.most_steps >= 0 && g.lanes > form.most_steps)
    return not_applicable("the shared loops run at most " + std::to_string(form.most_steps) + " steps, fewer than " +
                          std::to_string(g.lanes) + " lanes");
  if (plan->scans && (g.lanes > 32 || g.by_items))
    return not_applicable("a scan's lanes must be consecutive threads of one warp (order=lanes, lanes <= 32)");
  if ((g.lanes > 32 || plan->serial) && !g.by_items) block = g.lanes; // a block per item
  g.cluster = int_param(params, "cluster", 1);
  if (std::string why = cluster_refusal(k, g); !why.empty()) return not_applicable(why);
  if (block < g.lanes || block > 1024 || block % g.lanes != 0)
    return not_applicable("block must be a multiple of lanes");
  g.items = block / g.lanes;
  if (g.by_items && (g.items < 2 || (g.items & (g.items - 1)) != 0))
    return not_applicable("order=items needs two or more items per block, a power of two");
  if (g.by_items && g.spans_warps() && !plan->top_level)
    return not_applicable(
        "order=items needs the shared loops and the stores outside them at the top level of the body");
  const std::string &src = k.source();
  Edits e;
  // The group's lane and item, at the top of the body.
  size_t open = k.offset(plan->space.body->getLBracLoc());
  if (open == std::string::npos) return not_applicable("the kernel's body is written in a macro");
  std::string L = std::to_string(g.lanes), I = std::to_string(g.items);
  std::string lane = g.by_items ? "threadIdx.x / " + I + "u" : "threadIdx.x % " + L + "u";
  std::string item = g.by_items ? "threadIdx.x % " + I + "u" : "threadIdx.x / " + L + "u";
  std::string C = std::to_string(g.cluster), first_item = "(unsigned long long)blockIdx.x * " + I + "ull + " + item;
  std::string prologue = "\n  const unsigned __kbcc_lane = " + lane + ";\n";
  if (g.cluster > 1) {
    // Block r of a cluster is its rank (clusters of C blocks in x).
    first_item = "(unsigned long long)(blockIdx.x / " + C + "u)";
    prologue += "  const unsigned __kbcc_rank = blockIdx.x % " + C +
                "u;\n  const unsigned __kbcc_slot = __kbcc_rank * " + L + "u + __kbcc_lane;\n";
  }
  if (!plan->serial) prologue += "  const unsigned long long __kbcc_item = " + first_item + ";\n";
  e.insert(open + 1, prologue + "  const unsigned __kbcc_mask = " + group_mask(g) + ";\n  (void)__kbcc_mask;\n");
  for (const GlobalIndex &gi : plan->space.occurrences) {
    size_t b = 0, x = 0;
    if (!k.span(gi.expr->getSourceRange(), b, x)) return not_applicable("the global index is written in a macro");
    e.replace(b, x, as_index(src.substr(b, x - b), "__kbcc_item"));
  }
  int partials = 0;
  for (const Plan::Loop &l : plan->loops)
    if (auto st = share_loop(k, l, g, partials, plan->reads, e); !st) return st.error();
  for (const Stmt *s : plan->lane0) {
    size_t b = 0, x = 0;
    if (!k.span(s->getSourceRange(), b, x)) return not_applicable("a store is written in a macro");
    x = past_semicolon(src, x);
    e.insert(b, g.cluster > 1 ? "{ if (__kbcc_lane == 0 && __kbcc_rank == 0) " : "{ if (__kbcc_lane == 0) ");
    e.insert(x, std::string(plan->reads ? barrier(g) : "") + " }");
  }
  auto text = e.apply(src);
  if (!text) return text.error();
  Output out;
  out.source = g.cluster > 1 ? with_cluster_dims(*text, g.cluster) : *text;
  launch::LaunchMapping m;
  m.grid = {plan->serial ? C : "ceil_div(grid.x * block.x, " + I + ")" + (g.cluster > 1 ? " * " + C : ""),
            grid_y(plan->space), grid_z(plan->space)};
  m.block = {std::to_string(block), "1", "1"};
  m.shared = "0";
  // A serial kernel is one item only when launched as one thread.
  if (plan->serial) m.preconditions = {"grid.x == 1", "block.x == 1"};
  auto fixed = fixed_dims_preconditions(plan->space);
  m.preconditions.insert(m.preconditions.end(), fixed.begin(), fixed.end());
  if (g.items > 1) m.preconditions.push_back(coverage_precondition(plan->space, 0, g.items));
  out.launch = m;
  out.numerics = plan->float_reduction ? cache::kNumericsReassociates : cache::kNumericsExact;
  std::string n;
  for (const std::string &t : form.trip_counts)
    n = n.empty() ? t : "max(" + n + ", " + t + ")";
  out.reduction_length = plan->float_reduction ? n : "";
  std::set<std::string> sizes = plan->size_params;
  if (g.nest != Nest::Outer) sizes.insert(plan->nest_size_params.begin(), plan->nest_size_params.end());
  out.size_params.assign(sizes.begin(), sizes.end());
  return out;
}

} // namespace

Transform split_loop_transform() {
  return {"split_loop_across_warp",
          cache::kNumericsReassociates,
          "a group of lanes (part of a warp, a warp or a block) per item instead of a thread: inner loops split "
          "across the lanes, reductions combined with shuffles (and shared memory across warps)",
          true,
          space,
          apply};
}

} // namespace kbcc::transform
