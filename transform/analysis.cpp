#include "transform/analysis.h"

#include "tooling/source_range.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/FoldingSet.h"

#include <algorithm>
#include <functional>
#include <map>

namespace kbcc::transform {
using namespace clang;

void walk(const Stmt *s, const std::function<void(const Stmt *)> &fn) {
  if (!s) return;
  fn(s);
  for (const Stmt *c : s->children())
    walk(c, fn);
}

namespace {

const Expr *strip(const Expr *e) { return e ? e->IgnoreParenCasts() : nullptr; }

std::string callee_name(const CallExpr *call) {
  if (const FunctionDecl *fd = call->getDirectCallee())
    if (fd->getIdentifier()) return fd->getName().str();
  return {};
}

bool name_starts(const std::string &n, std::initializer_list<const char *> prefixes) {
  for (const char *p : prefixes)
    if (n.rfind(p, 0) == 0) return true;
  return false;
}

} // namespace

bool is_memory(const Expr *lhs) {
  const Expr *e = lhs->IgnoreParenImpCasts();
  if (const auto *ref = dyn_cast<DeclRefExpr>(e)) {
    const auto *var = dyn_cast<VarDecl>(ref->getDecl());
    return !var || !var->hasLocalStorage() || var->hasAttr<CUDASharedAttr>();
  }
  if (const auto *sub = dyn_cast<ArraySubscriptExpr>(e)) {
    const Expr *base = sub->getBase()->IgnoreParenImpCasts();
    if (const auto *ref = dyn_cast<DeclRefExpr>(base))
      if (const auto *var = dyn_cast<VarDecl>(ref->getDecl()))
        if (var->getType()->isArrayType()) return !var->hasLocalStorage() || var->hasAttr<CUDASharedAttr>();
    // An array member of a local struct (`v.e[k]`, kbcc's own vectors) lives where the struct does.
    if (isa<MemberExpr>(base) && base->getType()->isArrayType()) return is_memory(base);
    return true;
  }
  if (const auto *u = dyn_cast<UnaryOperator>(e)) return u->getOpcode() == UO_Deref;
  if (const auto *m = dyn_cast<MemberExpr>(e)) return m->isArrow() || is_memory(m->getBase());
  return false;
}

namespace {

bool is_atomic(const std::string &n) { return name_starts(n, {"atomic", "__nv_atomic"}); }

bool is_user_function(const FunctionDecl *fd) {
  return fd && fd->hasBody() && !tooling::in_system_header(fd, fd->getASTContext().getSourceManager());
}

// Writes or reads through a user callee's body (depth-limited).
bool callee_does(const CallExpr *call, bool (*what)(const Stmt *), int depth) {
  const FunctionDecl *fd = call->getDirectCallee();
  if (!fd) return true;
  if (!is_user_function(fd)) return false;
  if (depth > 8) return true;
  return what(fd->getBody());
}

bool writes_memory_at(const Stmt *s, int depth);
bool reads_memory_at(const Stmt *s, int depth);

bool writes_at(const Stmt *s) { return writes_memory_at(s, 1); }
bool reads_at(const Stmt *s) { return reads_memory_at(s, 1); }

bool writes_memory_at(const Stmt *s, int depth) {
  bool found = false;
  walk(s, [&](const Stmt *x) {
    if (found) return;
    if (const auto *b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp()) found = is_memory(b->getLHS());
    if (const auto *u = dyn_cast<UnaryOperator>(x); u && u->isIncrementDecrementOp())
      found = is_memory(u->getSubExpr());
    if (const auto *op = dyn_cast<CXXOperatorCallExpr>(x); op && op->isAssignmentOp()) found = is_memory(op->getArg(0));
    if (const auto *call = dyn_cast<CallExpr>(x); call && !isa<CXXOperatorCallExpr>(x)) {
      std::string n = callee_name(call);
      found = is_atomic(n) || name_starts(n, {"__st", "printf"}) || (depth <= 8 && callee_does(call, writes_at, depth));
    }
  });
  return found;
}

bool reads_memory_at(const Stmt *s, int depth) {
  bool found = false;
  walk(s, [&](const Stmt *x) {
    if (found) return;
    if (const auto *c = dyn_cast<ImplicitCastExpr>(x); c && c->getCastKind() == CK_LValueToRValue)
      found = is_memory(c->getSubExpr());
    if (const auto *c = dyn_cast<CompoundAssignOperator>(x)) found = is_memory(c->getLHS());
    if (const auto *call = dyn_cast<CallExpr>(x); call && !isa<CXXOperatorCallExpr>(x)) {
      std::string n = callee_name(call);
      found = is_atomic(n) || name_starts(n, {"__ld"}) || callee_does(call, reads_at, depth);
    }
    if (const auto *ctor = dyn_cast<CXXConstructExpr>(x))
      for (const Expr *a : ctor->arguments())
        if (a->isGLValue() && is_memory(a)) found = true;
  });
  return found;
}

} // namespace

std::optional<Builtin> as_builtin(const Expr *e) {
  if (!e) return std::nullopt;
  e = e->IgnoreParenCasts();
  if (const auto *p = dyn_cast<PseudoObjectExpr>(e)) e = p->getSyntacticForm()->IgnoreParenCasts();
  const auto *prop = dyn_cast<MSPropertyRefExpr>(e);
  if (!prop) return std::nullopt;
  const Expr *base = prop->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto *opaque = dyn_cast<OpaqueValueExpr>(base); opaque && opaque->getSourceExpr())
    base = opaque->getSourceExpr()->IgnoreParenImpCasts();
  const auto *ref = dyn_cast<DeclRefExpr>(base);
  if (!ref) return std::nullopt;
  static const std::pair<const char *, Builtin::Var> vars[] = {{"threadIdx", Builtin::ThreadIdx},
                                                               {"blockIdx", Builtin::BlockIdx},
                                                               {"blockDim", Builtin::BlockDim},
                                                               {"gridDim", Builtin::GridDim}};
  std::string field = prop->getPropertyDecl()->getName().str();
  int dim = field == "x" ? 0 : field == "y" ? 1 : field == "z" ? 2 : -1;
  if (dim < 0) return std::nullopt;
  for (const auto &[name, var] : vars)
    if (ref->getDecl()->getName() == name) return Builtin{var, dim, e};
  return std::nullopt;
}

namespace {

// The builtin that local `v` holds: `int tx = threadIdx.x;`, an integer of 32
// bits or more that nothing assigns afterwards; nullopt otherwise.
std::optional<Builtin> alias_of(const VarDecl *v) {
  if (!v || !v->hasLocalStorage() || isa<ParmVarDecl>(v) || !v->getType()->isIntegerType() || !v->getInit())
    return std::nullopt;
  if (v->getASTContext().getTypeSize(v->getType()) < 32) return std::nullopt;
  auto b = as_builtin(v->getInit());
  const auto *fn = dyn_cast_or_null<FunctionDecl>(v->getParentFunctionOrMethod());
  if (!b || !fn || !fn->getBody() || assigns(fn->getBody(), v)) return std::nullopt;
  return b;
}

// A builtin read, or a read of a local holding one (alias_of).
std::optional<Builtin> builtin_or_alias(const Expr *e) {
  if (auto b = as_builtin(e)) return b;
  auto b = alias_of(var_of(e));
  if (b) b->expr = e;
  return b;
}

} // namespace

std::optional<GlobalIndex> as_global_index(const Expr *e) {
  const auto *add = dyn_cast_or_null<BinaryOperator>(strip(e));
  if (!add || add->getOpcode() != BO_Add) return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    auto t = builtin_or_alias(side ? add->getLHS() : add->getRHS());
    const auto *mul = dyn_cast<BinaryOperator>(strip(side ? add->getRHS() : add->getLHS()));
    if (!t || t->var != Builtin::ThreadIdx || !mul || mul->getOpcode() != BO_Mul) continue;
    auto a = builtin_or_alias(mul->getLHS()), b = builtin_or_alias(mul->getRHS());
    if (!a || !b || a->dim != t->dim || b->dim != t->dim) continue;
    bool ok = (a->var == Builtin::BlockIdx && b->var == Builtin::BlockDim) ||
              (a->var == Builtin::BlockDim && b->var == Builtin::BlockIdx);
    if (ok) return GlobalIndex{t->dim, e};
  }
  return std::nullopt;
}

bool IndexUses::global_in(int dim) const {
  for (const auto &g : global)
    if (g.dim == dim) return true;
  return false;
}

bool IndexUses::any_in(int dim) const {
  if (global_in(dim)) return true;
  for (const auto &b : other)
    if (b.dim == dim) return true;
  return false;
}

IndexUses index_uses(const Stmt *body) {
  IndexUses out;
  std::set<const Stmt *> inside;
  // Locals holding a builtin: their reads outside the idiom, if any, count
  // as reads of the builtin (once, at the initializer).
  struct Alias {
    const VarDecl *var;
    Builtin builtin;
    bool read_outside = false;
  };
  std::vector<Alias> aliases;
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s) return;
    if (const auto *e = dyn_cast<Expr>(s))
      if (auto g = as_global_index(e)) {
        out.global.push_back(*g);
        walk(s, [&](const Stmt *x) { inside.insert(x); });
        return;
      }
    if (const auto *p = dyn_cast<PseudoObjectExpr>(s)) {
      if (auto b = as_builtin(p); b && !inside.count(s)) out.other.push_back(*b);
      return; // its semantic form repeats the builtin
    }
    if (const auto *d = dyn_cast<DeclStmt>(s)) {
      for (const Decl *decl : d->decls()) {
        const auto *v = dyn_cast<VarDecl>(decl);
        if (auto b = alias_of(v)) {
          b->expr = v->getInit();
          aliases.push_back({v, *b});
        } else if (v) {
          visit(v->getInit());
        }
      }
      return;
    }
    if (const auto *ref = dyn_cast<DeclRefExpr>(s))
      for (Alias &a : aliases)
        a.read_outside = a.read_outside || a.var == ref->getDecl();
    for (const Stmt *c : s->children())
      visit(c);
  };
  visit(body);
  for (const Alias &a : aliases)
    if (a.read_outside) out.other.push_back(a.builtin);
  return out;
}

Effects effects_of(const FunctionDecl *kernel) { return effects_in(kernel->getBody()); }

Effects effects_in(const Stmt *code) {
  Effects fx;
  std::set<const FunctionDecl *> seen;
  std::function<void(const Stmt *, bool)> scan = [&](const Stmt *s, bool top) {
    walk(s, [&](const Stmt *x) {
      if (isa<GCCAsmStmt>(x) || isa<MSAsmStmt>(x)) fx.inline_asm = true;
      if (isa<CUDAKernelCallExpr>(x)) fx.device_launch = true;
      if (const auto *d = dyn_cast<DeclStmt>(x))
        for (const Decl *decl : d->decls())
          if (const auto *v = dyn_cast<VarDecl>(decl); v && v->hasAttr<CUDASharedAttr>()) fx.shared_memory = true;
      if (const auto *ref = dyn_cast<DeclRefExpr>(x))
        if (const auto *v = dyn_cast<VarDecl>(ref->getDecl()); v && v->hasAttr<CUDASharedAttr>())
          fx.shared_memory = true;
      const auto *call = dyn_cast<CallExpr>(x);
      if (!call) return;
      const FunctionDecl *fd = call->getDirectCallee();
      if (!fd) {
        if (!isa<CXXPseudoDestructorExpr>(call->getCallee())) fx.unknown_calls = true;
        return;
      }
      std::string n = fd->getIdentifier() ? fd->getName().str() : "";
      std::string q = fd->getQualifiedNameAsString();
      if (name_starts(n, {"__syncthreads", "__syncwarp", "__barrier", "__threadfence_block"}) ||
          q.rfind("cooperative_groups::", 0) == 0)
        fx.barrier = true;
      if (name_starts(n, {"__shfl", "__ballot", "__all", "__any", "__match", "__reduce_", "__activemask", "__vote"}) ||
          q.rfind("cooperative_groups::", 0) == 0)
        fx.warp_ops = true;
      if (is_atomic(n)) {
        fx.atomics = true;
        if (top) fx.atomic_calls.push_back(call);
      }
      if (is_user_function(fd)) {
        if (seen.insert(fd).second) scan(fd->getBody(), false);
      } else if (!fd->hasBody() && !tooling::in_system_header(fd, fd->getASTContext().getSourceManager()) &&
                 !fd->getBuiltinID()) {
        fx.unknown_calls = true;
      }
    });
  };
  scan(code, true);
  return fx;
}

bool writes_memory(const Stmt *s) { return writes_memory_at(s, 0); }
bool reads_memory(const Stmt *s) { return reads_memory_at(s, 0); }

std::vector<const Expr *> reference_arguments(const Stmt *s) {
  std::vector<const Expr *> out;
  const auto *c = dyn_cast<CallExpr>(s);
  if (!c) return out;
  const FunctionDecl *fd = c->getDirectCallee();
  unsigned first = 0; // an operator method's object comes first, bound to `this`
  if (const auto *m = dyn_cast_or_null<CXXMethodDecl>(fd); m && isa<CXXOperatorCallExpr>(c) && c->getNumArgs() > 0) {
    first = 1;
    if (!m->isConst() && c->getArg(0)->isLValue()) out.push_back(c->getArg(0));
  }
  for (unsigned i = first; i < c->getNumArgs(); ++i) {
    const Expr *arg = c->getArg(i);
    if (fd && i - first >= fd->getNumParams()) continue; // a variadic argument, passed by value
    QualType t = fd ? fd->getParamDecl(i - first)->getType() : QualType();
    bool writable = !fd || (t->isReferenceType() && !t.getNonReferenceType().isConstQualified());
    if (writable && arg->isLValue()) out.push_back(arg);
  }
  return out;
}

bool assigns(const Stmt *s, const VarDecl *var) {
  bool found = false;
  auto is_var = [&](const Expr *e) {
    const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return ref && ref->getDecl() == var;
  };
  walk(s, [&](const Stmt *x) {
    if (const auto *b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp() && is_var(b->getLHS())) found = true;
    if (const auto *u = dyn_cast<UnaryOperator>(x))
      if ((u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf) && is_var(u->getSubExpr())) found = true;
    for (const Expr *arg : reference_arguments(x))
      if (is_var(arg)) found = true;
  });
  return found;
}

bool refers_to(const Stmt *s, const VarDecl *var) {
  bool found = false;
  walk(s, [&](const Stmt *x) {
    if (const auto *ref = dyn_cast<DeclRefExpr>(x); ref && ref->getDecl() == var) found = true;
  });
  return found;
}

int references(const Stmt *s, const ValueDecl *decl) {
  int n = 0;
  walk(s, [&](const Stmt *x) {
    if (const auto *ref = dyn_cast<DeclRefExpr>(x); ref && ref->getDecl() == decl) ++n;
  });
  return n;
}

bool is_syncthreads(const Stmt *s) {
  const auto *call = dyn_cast_or_null<CallExpr>(s);
  const FunctionDecl *fd = call ? call->getDirectCallee() : nullptr;
  return fd && fd->getIdentifier() && fd->getName() == "__syncthreads" && call->getNumArgs() == 0;
}

bool accesses_volatile(const Stmt *s) {
  bool found = false;
  walk(s, [&](const Stmt *x) {
    const auto *e = dyn_cast<Expr>(x);
    if (!e) return;
    QualType t = e->getType();
    found |= t.isVolatileQualified() || (t->isPointerType() && t->getPointeeType().isVolatileQualified());
  });
  return found;
}

bool continues(const Stmt *s) {
  if (!s || isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s)) return false;
  if (isa<ContinueStmt>(s)) return true;
  for (const Stmt *c : s->children())
    if (continues(c)) return true;
  return false;
}

const Expr *continue_guard(const Stmt *s) {
  const auto *i = dyn_cast<IfStmt>(s);
  if (!i || i->getElse() || i->getInit() || i->getConditionVariable()) return nullptr;
  const Stmt *then = i->getThen();
  if (const auto *c = dyn_cast<CompoundStmt>(then); c && c->size() == 1) then = c->body_front();
  return isa<ContinueStmt>(then) ? i->getCond() : nullptr;
}

void for_each_read(const Stmt *s, const std::function<bool(const ArraySubscriptExpr *, const Path &, bool)> &on_read) {
  std::function<void(const Stmt *, Path &, bool)> visit = [&](const Stmt *s, Path &path, bool plain) {
    if (!s) return;
    if (const auto *i = dyn_cast<IfStmt>(s)) {
      visit(i->getCond(), path, plain);
      path.emplace_back(i->getCond(), true);
      visit(i->getThen(), path, plain);
      path.back().second = false;
      visit(i->getElse(), path, plain);
      path.pop_back();
      return;
    }
    if (const auto *cs = dyn_cast<CompoundStmt>(s)) { // after `if (C) continue;`, !C holds
      size_t pushed = 0;
      for (const Stmt *child : cs->body()) {
        visit(child, path, plain);
        if (const Expr *c = continue_guard(child)) {
          path.emplace_back(c, false);
          ++pushed;
        } else if (continues(child)) {
          plain = false;
        }
      }
      path.resize(path.size() - pushed);
      return;
    }
    if (const auto *c = dyn_cast<ImplicitCastExpr>(s); c && c->getCastKind() == CK_LValueToRValue)
      if (const auto *sub = dyn_cast<ArraySubscriptExpr>(c->getSubExpr()->IgnoreParens());
          sub && on_read(sub, path, plain))
        return;
    bool nested = isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<SwitchStmt>(s) ||
                  isa<ConditionalOperator>(s) || isa<BinaryConditionalOperator>(s) || isa<LambdaExpr>(s);
    if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isLogicalOp()) {
      visit(b->getLHS(), path, plain);
      visit(b->getRHS(), path, false);
      return;
    }
    for (const Stmt *child : s->children())
      visit(child, path, plain && !nested);
  };
  Path path;
  visit(s, path, true);
}

bool has_return(const Stmt *s) {
  bool found = false;
  walk(s, [&](const Stmt *x) { found = found || isa<ReturnStmt>(x); });
  return found;
}

namespace {
bool returns_in_loop_at(const Stmt *s, bool nested) {
  if (!s) return false;
  if (isa<ReturnStmt>(s)) return nested;
  nested =
      nested || isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<SwitchStmt>(s) || isa<CXXForRangeStmt>(s);
  for (const Stmt *c : s->children())
    if (returns_in_loop_at(c, nested)) return true;
  return false;
}
} // namespace

bool returns_in_loop(const Stmt *s) { return returns_in_loop_at(s, false); }

bool declares_shared(const Stmt *s) {
  const auto *d = dyn_cast_or_null<DeclStmt>(s);
  return d && std::all_of(d->decl_begin(), d->decl_end(), [](const Decl *x) {
           const auto *v = dyn_cast<VarDecl>(x);
           return v && v->hasAttr<CUDASharedAttr>();
         });
}

bool has_break_or_goto(const Stmt *s) {
  bool found = false;
  walk(s, [&](const Stmt *x) {
    found = found || isa<BreakStmt>(x) || isa<GotoStmt>(x) || isa<IndirectGotoStmt>(x) || isa<LabelStmt>(x) ||
            isa<SwitchStmt>(x);
  });
  return found;
}

namespace {

// Whether `f` starts with `v = init` (a counted loop's init on a variable
// declared elsewhere).
bool assigns_in_init(const ForStmt *f, const VarDecl *v) {
  const auto *set = dyn_cast_or_null<BinaryOperator>(f->getInit());
  const auto *ref =
      set && set->getOpcode() == BO_Assign ? dyn_cast<DeclRefExpr>(set->getLHS()->IgnoreParenImpCasts()) : nullptr;
  return ref && ref->getDecl() == v;
}

// Whether every reference to `v` in `body` lies in `loop` or in another for
// statement that starts with `v = init`, does not read `v` in that init and
// neither contains `loop` nor lies in it: then no value of `v` set by `loop`
// is read outside it (`int j; ... for (j = 0; ...) ... for (j = 0; ...)`).
bool private_to_loops(const Stmt *body, const VarDecl *v, const ForStmt *loop) {
  bool ok = true;
  std::function<void(const Stmt *, bool)> visit = [&](const Stmt *s, bool owned) {
    if (!s || !ok || s == loop) return; // the loop's own references are its own
    if (const auto *ref = dyn_cast<DeclRefExpr>(s); ref && ref->getDecl() == v) ok = owned;
    const auto *f = dyn_cast<ForStmt>(s);
    if (f && !owned && assigns_in_init(f, v)) {
      bool holds_loop = false;
      walk(f, [&](const Stmt *x) { holds_loop = holds_loop || x == loop; });
      if (holds_loop || refers_to(cast<BinaryOperator>(f->getInit())->getRHS(), v)) {
        ok = false;
        return;
      }
      for (const Stmt *c : s->children())
        if (c != f->getInit()) visit(c, true);
      return;
    }
    for (const Stmt *c : s->children())
      visit(c, owned);
  };
  visit(body, false);
  return ok;
}

} // namespace

bool loop_counter(const Stmt *body, const VarDecl *v) {
  return !v->getInit() && v->getType()->isIntegerType() && private_to_loops(body, v, nullptr);
}

std::optional<CountedLoop> counted_loop(const ForStmt *loop, bool reused_var) {
  CountedLoop out;
  out.loop = loop;
  if (const auto *init = dyn_cast_or_null<DeclStmt>(loop->getInit()); init && init->isSingleDecl()) {
    out.var = dyn_cast<VarDecl>(init->getSingleDecl());
    out.init = out.var ? out.var->getInit() : nullptr;
  } else if (const auto *set = dyn_cast_or_null<BinaryOperator>(loop->getInit());
             set && set->getOpcode() == BO_Assign) {
    // v = init, with v a local only this loop uses: declared elsewhere, it
    // still lives only in the loop.
    const auto *ref = dyn_cast<DeclRefExpr>(set->getLHS()->IgnoreParenImpCasts());
    out.var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    const auto *fn = out.var ? dyn_cast_or_null<FunctionDecl>(out.var->getParentFunctionOrMethod()) : nullptr;
    if (!fn || isa<ParmVarDecl>(out.var) || !out.var->hasLocalStorage() ||
        (!reused_var && !private_to_loops(fn->getBody(), out.var, loop)) || refers_to(set->getRHS(), out.var))
      return std::nullopt;
    out.init = set->getRHS();
  }
  if (!out.var || !out.var->getType()->isIntegerType() || !out.init) return std::nullopt;
  auto is_var = [&](const Expr *e) {
    const auto *ref = dyn_cast_or_null<DeclRefExpr>(e ? e->IgnoreParenImpCasts() : nullptr);
    return ref && ref->getDecl() == out.var;
  };
  const auto *cond =
      dyn_cast_or_null<BinaryOperator>(loop->getCond() ? loop->getCond()->IgnoreParenImpCasts() : nullptr);
  if (!cond || (cond->getOpcode() != BO_LT && cond->getOpcode() != BO_LE) || !is_var(cond->getLHS()) ||
      refers_to(cond->getRHS(), out.var))
    return std::nullopt;
  out.bound = cond->getRHS();
  out.inclusive = cond->getOpcode() == BO_LE;
  const Expr *inc = loop->getInc() ? loop->getInc()->IgnoreParenImpCasts() : nullptr;
  bool unit = false;
  if (const auto *u = dyn_cast_or_null<UnaryOperator>(inc)) unit = u->isIncrementOp() && is_var(u->getSubExpr());
  if (const auto *c = dyn_cast_or_null<CompoundAssignOperator>(inc)) {
    const auto *one = dyn_cast<IntegerLiteral>(c->getRHS()->IgnoreParenImpCasts());
    unit = c->getOpcode() == BO_AddAssign && is_var(c->getLHS()) && one && one->getValue() == 1;
  }
  if (const auto *b = dyn_cast_or_null<BinaryOperator>(inc); b && b->getOpcode() == BO_Assign && is_var(b->getLHS())) {
    const auto *add = dyn_cast<BinaryOperator>(b->getRHS()->IgnoreParenImpCasts());
    const auto *one = add ? dyn_cast<IntegerLiteral>(add->getRHS()->IgnoreParenImpCasts()) : nullptr;
    unit = add && add->getOpcode() == BO_Add && is_var(add->getLHS()) && one && one->getValue() == 1;
  }
  if (!unit || assigns(loop->getBody(), out.var)) return std::nullopt;
  return out;
}

const VarDecl *var_of(const Expr *e) {
  const auto *ref = dyn_cast_or_null<DeclRefExpr>(e ? e->IgnoreParenImpCasts() : nullptr);
  return ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
}

bool names(const Expr *e, const VarDecl *var) {
  const auto *ref = dyn_cast_or_null<DeclRefExpr>(e ? e->IgnoreParenImpCasts() : nullptr);
  return ref && ref->getDecl() == var;
}

std::optional<Accumulation> accumulation_in(const Stmt *s, const VarDecl *var, const ASTContext &ctx) {
  Accumulation a;
  a.var = var;
  a.stmt = s;
  if (const auto *c = dyn_cast<CompoundAssignOperator>(s)) {
    if (!names(c->getLHS(), var) || refers_to(c->getRHS(), var)) return std::nullopt;
    switch (c->getOpcode()) {
    case BO_AddAssign:
    case BO_SubAssign:
      a.kind = Accumulation::Sum;
      return a;
    case BO_OrAssign:
      a.kind = Accumulation::Or;
      return a;
    case BO_AndAssign:
      a.kind = Accumulation::And;
      return a;
    case BO_XorAssign:
      a.kind = Accumulation::Xor;
      return a;
    default:
      return std::nullopt;
    }
  }
  if (const auto *u = dyn_cast<UnaryOperator>(s)) {
    if (!u->isIncrementDecrementOp() || !names(u->getSubExpr(), var)) return std::nullopt;
    a.kind = Accumulation::Sum;
    return a;
  }
  const auto *b = dyn_cast<BinaryOperator>(s);
  if (!b || b->getOpcode() != BO_Assign || !names(b->getLHS(), var)) return std::nullopt;
  const Expr *rhs = b->getRHS()->IgnoreParenImpCasts();
  if (const auto *add = dyn_cast<BinaryOperator>(rhs)) {
    bool left = names(add->getLHS(), var) && !refers_to(add->getRHS(), var);
    bool right = names(add->getRHS(), var) && !refers_to(add->getLHS(), var);
    if ((add->getOpcode() == BO_Add && (left || right)) || (add->getOpcode() == BO_Sub && left)) {
      a.kind = Accumulation::Sum;
      return a;
    }
    return std::nullopt;
  }
  const auto *call = dyn_cast<CallExpr>(rhs);
  if (!call || call->getNumArgs() != 2) return std::nullopt;
  const FunctionDecl *fd = call->getDirectCallee();
  std::string n = fd && fd->getIdentifier() ? fd->getName().str() : "";
  static const std::set<std::string> extrema = {"fmaxf", "fminf", "fmax", "fmin", "max", "min", "__hmax", "__hmin"};
  if (!extrema.count(n)) return std::nullopt;
  bool left = names(call->getArg(0), var) && !refers_to(call->getArg(1), var);
  bool right = names(call->getArg(1), var) && !refers_to(call->getArg(0), var);
  if (!left && !right) return std::nullopt;
  a.kind = Accumulation::MaxMin;
  a.combine = n;
  (void)ctx;
  return a;
}

bool loop_temporary(const VarDecl *v, const ForStmt *loop) {
  const auto *fn = dyn_cast_or_null<FunctionDecl>(v->getParentFunctionOrMethod());
  const Stmt *body = loop->getBody();
  if (!fn || !fn->getBody() || references(fn->getBody(), v) != references(body, v)) return false;
  std::vector<const Stmt *> statements{body};
  if (const auto *block = dyn_cast<CompoundStmt>(body)) statements.assign(block->body_begin(), block->body_end());
  for (const Stmt *s : statements) {
    if (!refers_to(s, v)) continue;
    const auto *set = dyn_cast<BinaryOperator>(s);
    return set && set->getOpcode() == BO_Assign && names(set->getLHS(), v) && !refers_to(set->getRHS(), v);
  }
  return false;
}

bool declared_in(const VarDecl *v, const Stmt *s, const ASTContext &ctx) {
  const SourceManager &sm = ctx.getSourceManager();
  SourceRange inside = s->getSourceRange();
  SourceLocation l = v->getLocation();
  return !sm.isBeforeInTranslationUnit(l, inside.getBegin()) && !sm.isBeforeInTranslationUnit(inside.getEnd(), l);
}

const VarDecl *outer_scalar(const Expr *lhs, const ForStmt *loop, const ASTContext &ctx) {
  const VarDecl *v = var_of(lhs);
  if (!v || !v->hasLocalStorage() || v->getType()->isArrayType()) return nullptr;
  return declared_in(v, loop, ctx) || loop_temporary(v, loop) ? nullptr : v;
}

namespace {

// The test `cond` of a selection, X OP best or best OP X: sets sel.best,
// sel.greater and sel.strict, and returns X; null when it is not one.
const Expr *selection_test(const Expr *cond, const ForStmt *loop, const ASTContext &ctx, Selection &sel) {
  const auto *cmp = dyn_cast<BinaryOperator>(cond->IgnoreParenImpCasts());
  if (!cmp || !cmp->isRelationalOp()) return nullptr;
  const VarDecl *left = outer_scalar(cmp->getLHS(), loop, ctx), *right = outer_scalar(cmp->getRHS(), loop, ctx);
  bool best_left = left && !right;
  sel.best = best_left ? left : right;
  if (!sel.best || !sel.best->getType()->isArithmeticType()) return nullptr;
  BinaryOperatorKind op = cmp->getOpcode();
  if (best_left) op = BinaryOperator::reverseComparisonOp(op); // X OP best
  sel.greater = op == BO_GT || op == BO_GE;
  sel.strict = op == BO_GT || op == BO_LT;
  return best_left ? cmp->getRHS() : cmp->getLHS();
}

// The selection `best = X OP best ? X : best;` that `s` is, when it is one.
std::optional<Selection> pick_in(const Stmt *s, const ForStmt *loop, const ASTContext &ctx) {
  const auto *a = dyn_cast<BinaryOperator>(s);
  const auto *pick =
      a && a->getOpcode() == BO_Assign ? dyn_cast<ConditionalOperator>(a->getRHS()->IgnoreParenImpCasts()) : nullptr;
  Selection sel;
  const Expr *x = pick ? selection_test(pick->getCond(), loop, ctx, sel) : nullptr;
  if (!x || x->HasSideEffects(ctx) || outer_scalar(a->getLHS(), loop, ctx) != sel.best) return std::nullopt;
  // `best = T ? best : X` keeps X where the test fails: for integers, whose
  // comparisons are total, the selection of the negated test.
  sel.negated = names(pick->getTrueExpr(), sel.best) && same_expr(pick->getFalseExpr(), x, ctx);
  bool integers = sel.best->getType()->isIntegerType() && x->IgnoreParenImpCasts()->getType()->isIntegerType();
  if (sel.negated && !integers) return std::nullopt;
  if (!sel.negated && (!names(pick->getFalseExpr(), sel.best) || !same_expr(pick->getTrueExpr(), x, ctx)))
    return std::nullopt;
  if (sel.negated) { // !(X OP best) is X NOT-OP best
    sel.greater = !sel.greater;
    sel.strict = !sel.strict;
  }
  sel.pick = a;
  return sel;
}

// The selection `i` writes, when it is one (the counts of references are the caller's).
std::optional<Selection> selection_in(const IfStmt *i, const ForStmt *loop, const ASTContext &ctx) {
  Selection sel;
  sel.stmt = i;
  const Expr *x = i->getElse() ? nullptr : selection_test(i->getCond(), loop, ctx, sel);
  if (!x) return std::nullopt;
  std::vector<const Stmt *> body;
  if (const auto *c = dyn_cast<CompoundStmt>(i->getThen()))
    body.assign(c->body_begin(), c->body_end());
  else
    body.push_back(i->getThen());
  bool sets_best = false;
  for (const Stmt *s : body) {
    const auto *a = dyn_cast<BinaryOperator>(s);
    const VarDecl *v = a && a->getOpcode() == BO_Assign ? outer_scalar(a->getLHS(), loop, ctx) : nullptr;
    if (!v || !v->getType()->isArithmeticType()) return std::nullopt;
    if (v == sel.best) {
      if (sets_best || !same_expr(a->getRHS(), x, ctx)) return std::nullopt;
      sets_best = true;
    } else {
      if (std::find(sel.carried.begin(), sel.carried.end(), v) != sel.carried.end()) return std::nullopt;
      sel.carried.push_back(v);
    }
  }
  if (!sets_best) return std::nullopt;
  return sel;
}

} // namespace

std::vector<Selection> selections(const ForStmt *loop, const ASTContext &ctx) {
  std::vector<Selection> out;
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s || isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s)) return;
    if (const auto *i = dyn_cast<IfStmt>(s))
      if (auto sel = selection_in(i, loop, ctx)) {
        out.push_back(*sel);
        return;
      }
    if (auto sel = pick_in(s, loop, ctx)) {
      out.push_back(*sel);
      return;
    }
    for (const Stmt *c : s->children())
      visit(c);
  };
  visit(loop->getBody());
  // The loop names best only in the selection's test and assignment (and,
  // in the ?: form, its false arm), and each carried variable only where the
  // selection assigns it.
  std::vector<Selection> kept;
  for (const Selection &sel : out) {
    bool alone = references(loop->getBody(), sel.best) == (sel.pick ? 3 : 2);
    for (const VarDecl *c : sel.carried)
      alone = alone && references(loop->getBody(), c) == 1;
    if (alone) kept.push_back(sel);
  }
  return kept;
}

namespace {
// The variables of the counted loops nested in `loop` that are declared
// outside it and used only by loops that set them first (`int j, k; for (j
// = 0; ...) for (k = 0; ...)`): no value they hold after such a loop is read,
// so they carry nothing out of `loop`'s iterations.
std::set<const VarDecl *> nested_counters(const ForStmt *loop) {
  std::set<const VarDecl *> out;
  walk(loop->getBody(), [&](const Stmt *s) {
    const auto *f = dyn_cast<ForStmt>(s);
    auto cl = f ? counted_loop(f) : std::nullopt;
    const auto *fn = cl ? dyn_cast_or_null<FunctionDecl>(cl->var->getParentFunctionOrMethod()) : nullptr;
    if (fn && isa<BinaryOperator>(f->getInit()) && loop_counter(fn->getBody(), cl->var)) out.insert(cl->var);
  });
  return out;
}
} // namespace

std::optional<std::vector<Accumulation>> accumulations(const ForStmt *loop, const ASTContext &ctx,
                                                       const std::set<const VarDecl *> &skip) {
  std::map<const VarDecl *, std::vector<const Stmt *>> writes;
  std::set<const VarDecl *> counters = nested_counters(loop);
  auto target = [&](const Expr *lhs) -> const VarDecl * {
    const VarDecl *v = outer_scalar(lhs, loop, ctx);
    return v && !skip.count(v) && !counters.count(v) ? v : nullptr;
  };
  bool escapes = false;
  walk(loop->getBody(), [&](const Stmt *x) {
    if (const auto *b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp())
      if (const VarDecl *v = target(b->getLHS())) writes[v].push_back(x);
    if (const auto *u = dyn_cast<UnaryOperator>(x)) {
      if (u->isIncrementDecrementOp())
        if (const VarDecl *v = target(u->getSubExpr())) writes[v].push_back(x);
      if (u->getOpcode() == UO_AddrOf && target(u->getSubExpr())) escapes = true;
    }
    for (const Expr *arg : reference_arguments(x))
      if (target(arg)) escapes = true;
  });
  if (escapes) return std::nullopt;
  std::vector<Accumulation> out;
  for (const auto &[var, stmts] : writes) {
    if (!var->getType()->isArithmeticType()) return std::nullopt;
    int covered = 0;
    std::optional<Accumulation::Kind> kind;
    std::string combine;
    for (const Stmt *s : stmts) {
      auto a = accumulation_in(s, var, ctx);
      if (!a || (kind && (*kind != a->kind || combine != a->combine))) return std::nullopt;
      kind = a->kind;
      combine = a->combine;
      covered += references(s, var);
      out.push_back(*a);
    }
    if (covered != references(loop->getBody(), var)) return std::nullopt; // read elsewhere in the loop
  }
  return out;
}

const Expr *value_of(const VarDecl *v) {
  const auto *fn = dyn_cast_or_null<FunctionDecl>(v ? v->getParentFunctionOrMethod() : nullptr);
  const auto *body = dyn_cast_or_null<CompoundStmt>(fn ? fn->getBody() : nullptr);
  if (!body || !v->hasLocalStorage() || isa<ParmVarDecl>(v)) return nullptr;
  if (v->getInit()) return assigns(body, v) ? nullptr : v->getInit();
  const Expr *value = nullptr;
  for (const Stmt *s : body->body()) {
    const auto *b = dyn_cast<BinaryOperator>(s);
    bool sets = b && b->getOpcode() == BO_Assign && names(b->getLHS(), v) && !refers_to(b->getRHS(), v);
    if (sets && !value) {
      value = b->getRHS();
      continue;
    }
    bool declares = false;
    if (const auto *d = dyn_cast<DeclStmt>(s))
      for (const Decl *decl : d->decls())
        declares = declares || decl == v;
    if (declares) continue;
    if (value ? assigns(s, v) : refers_to(s, v)) return nullptr;
  }
  return value;
}

std::vector<const VarDecl *> index_variables(const Stmt *body, int dim) {
  std::vector<const VarDecl *> out;
  walk(body, [&](const Stmt *x) {
    const auto *d = dyn_cast<DeclStmt>(x);
    if (!d) return;
    for (const Decl *decl : d->decls()) {
      const auto *v = dyn_cast<VarDecl>(decl);
      if (!v || !v->getType()->isIntegerType()) continue;
      const Expr *value = value_of(v);
      for (int hops = 0; value && hops < 4; ++hops) { // i = index, with index = <global index>
        const auto *ref = dyn_cast<DeclRefExpr>(value->IgnoreParenImpCasts());
        const auto *u = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
        if (!u || isa<ParmVarDecl>(u)) break;
        value = value_of(u);
      }
      auto g = value ? as_global_index(value) : std::nullopt;
      if (g && g->dim == dim) out.push_back(v);
    }
  });
  return out;
}

const Expr *less_than_bound(const Expr *e, const VarDecl *var) {
  const auto *b = dyn_cast<BinaryOperator>(e->IgnoreParenImpCasts());
  if (!b) return nullptr;
  if (b->getOpcode() == BO_LT && names(b->getLHS(), var)) return b->getRHS();
  if (b->getOpcode() == BO_GT && names(b->getRHS(), var)) return b->getLHS();
  return nullptr;
}

const Expr *at_least_bound(const Expr *e, const VarDecl *var) {
  const auto *b = dyn_cast<BinaryOperator>(e->IgnoreParenImpCasts());
  if (!b) return nullptr;
  if (b->getOpcode() == BO_GE && names(b->getLHS(), var)) return b->getRHS();
  if (b->getOpcode() == BO_LE && names(b->getRHS(), var)) return b->getLHS();
  return nullptr;
}

void split_terms(const Expr *e, BinaryOperatorKind op, std::vector<const Expr *> &out) {
  const auto *b = dyn_cast<BinaryOperator>(e->IgnoreParenImpCasts());
  if (b && b->getOpcode() == op) {
    split_terms(b->getLHS(), op, out);
    split_terms(b->getRHS(), op, out);
    return;
  }
  out.push_back(e);
}

bool only_returns(const Stmt *s) {
  if (isa<ReturnStmt>(s)) return true;
  const auto *c = dyn_cast<CompoundStmt>(s);
  return c && c->size() == 1 && isa<ReturnStmt>(c->body_front());
}

const IfStmt *work_block(const CompoundStmt *block) {
  const Stmt *last = nullptr;
  for (const Stmt *s : block->body())
    if (!isa<NullStmt>(s)) last = s;
  const auto *i = dyn_cast_or_null<IfStmt>(last);
  if (!i || i->getElse() || i->getInit() || i->getConditionVariable() || !isa<CompoundStmt>(i->getThen()))
    return nullptr;
  return i;
}

std::optional<long long> constant_value(const Expr *e, const ASTContext &ctx) {
  Expr::EvalResult r;
  if (!e || e->isValueDependent() || !e->EvaluateAsInt(r, ctx)) return std::nullopt;
  return r.Val.getInt().getExtValue();
}

bool block_uniform(const Expr *e, int depth) {
  if (!e || depth > 8) return false;
  e = e->IgnoreParens();
  if (auto b = as_builtin(e)) return b->var != Builtin::ThreadIdx;
  if (isa<IntegerLiteral>(e) || isa<FloatingLiteral>(e) || isa<CXXBoolLiteralExpr>(e) || isa<CharacterLiteral>(e) ||
      isa<UnaryExprOrTypeTraitExpr>(e))
    return true;
  if (const auto *r = dyn_cast<DeclRefExpr>(e)) {
    if (isa<EnumConstantDecl>(r->getDecl())) return true;
    const auto *v = dyn_cast<VarDecl>(r->getDecl());
    if (const auto *p = dyn_cast_or_null<ParmVarDecl>(v)) {
      const auto *fn = dyn_cast_or_null<FunctionDecl>(p->getParentFunctionOrMethod());
      return fn && fn->getBody() && !assigns(fn->getBody(), p);
    }
    if (v && !v->hasLocalStorage())
      return v->isConstexpr() || (v->getType().isConstQualified() && !v->hasAttr<CUDASharedAttr>() &&
                                  block_uniform(v->getInit(), depth + 1));
    return v && block_uniform(value_of(v), depth + 1);
  }
  if (const auto *c = dyn_cast<CastExpr>(e)) return block_uniform(c->getSubExpr(), depth);
  if (const auto *u = dyn_cast<UnaryOperator>(e))
    return !u->isIncrementDecrementOp() && u->getOpcode() != UO_Deref && u->getOpcode() != UO_AddrOf &&
           block_uniform(u->getSubExpr(), depth);
  if (const auto *b = dyn_cast<BinaryOperator>(e))
    return !b->isAssignmentOp() && b->getOpcode() != BO_Comma && block_uniform(b->getLHS(), depth) &&
           block_uniform(b->getRHS(), depth);
  if (const auto *c = dyn_cast<ConditionalOperator>(e))
    return block_uniform(c->getCond(), depth) && block_uniform(c->getTrueExpr(), depth) &&
           block_uniform(c->getFalseExpr(), depth);
  return false;
}

bool is_block_exit(const Stmt *s) {
  const auto *i = dyn_cast<IfStmt>(s);
  return i && !i->getElse() && !i->hasInitStorage() && !i->hasVarStorage() && only_returns(i->getThen()) &&
         block_uniform(i->getCond());
}

std::vector<const Stmt *> block_statements(const CompoundStmt *body, bool &guarded) {
  std::vector<const Stmt *> out;
  for (const CompoundStmt *c = body; c;) {
    const IfStmt *w = work_block(c);
    bool enter = w && block_uniform(w->getCond()) && effects_in(w->getThen()).barrier;
    for (const Stmt *s : c->body()) {
      if (enter && s == w) break;
      out.push_back(s);
    }
    c = enter ? cast<CompoundStmt>(w->getThen()) : nullptr;
    guarded = guarded || enter;
  }
  return out;
}

std::vector<const Expr *> guard_bounds(const CompoundStmt *body, const VarDecl *var) {
  std::vector<const Expr *> out;
  for (const Stmt *s : body->body()) {
    const auto *i = dyn_cast<IfStmt>(s);
    if (!i || i->getElse() || i->hasInitStorage() || i->hasVarStorage()) continue;
    std::vector<const Expr *> parts;
    if (only_returns(i->getThen())) {
      split_terms(i->getCond(), BO_LOr, parts);
      for (const Expr *t : parts)
        if (const Expr *b = at_least_bound(t, var)) out.push_back(b);
    } else if (s == body->body_back()) {
      split_terms(i->getCond(), BO_LAnd, parts);
      for (const Expr *t : parts)
        if (const Expr *b = less_than_bound(t, var)) out.push_back(b);
    }
  }
  return out;
}

std::optional<std::string> as_mapping_expr(const Expr *e) {
  e = e->IgnoreParenCasts();
  if (const auto *lit = dyn_cast<IntegerLiteral>(e)) return std::to_string(lit->getValue().getSExtValue());
  if (const auto *ref = dyn_cast<DeclRefExpr>(e)) {
    const auto *p = dyn_cast<ParmVarDecl>(ref->getDecl());
    if (p && p->getType()->isIntegerType() && !p->getType()->isBooleanType()) return p->getName().str();
    const auto *v = dyn_cast<VarDecl>(ref->getDecl());
    const Expr *value = v && v->getType()->isIntegerType() ? value_of(v) : nullptr;
    return value ? as_mapping_expr(value) : std::nullopt;
  }
  const auto *b = dyn_cast<BinaryOperator>(e);
  if (!b) return std::nullopt;
  if (b->getOpcode() == BO_Shl || b->getOpcode() == BO_Shr) { // constants only: `1 << 20`
    auto l = as_mapping_expr(b->getLHS()), r = as_mapping_expr(b->getRHS());
    auto number = [](const std::optional<std::string> &t) -> std::optional<int64_t> {
      if (!t || t->empty() || t->find_first_not_of("0123456789") != std::string::npos || t->size() > 18)
        return std::nullopt;
      return std::stoll(*t);
    };
    auto x = number(l), y = number(r);
    if (!x || !y || *y > 62 || (b->getOpcode() == BO_Shl && *x > (INT64_MAX >> *y))) return std::nullopt;
    return std::to_string(b->getOpcode() == BO_Shl ? *x << *y : *x >> *y);
  }
  const char *op = b->getOpcode() == BO_Add   ? "+"
                   : b->getOpcode() == BO_Sub ? "-"
                   : b->getOpcode() == BO_Mul ? "*"
                   : b->getOpcode() == BO_Div ? "/"
                                              : nullptr;
  if (!op) return std::nullopt;
  auto l = as_mapping_expr(b->getLHS()), r = as_mapping_expr(b->getRHS());
  if (!l || !r) return std::nullopt;
  return "(" + *l + " " + op + " " + *r + ")";
}

std::set<std::string> integer_params(const Expr *e) {
  std::set<std::string> out;
  walk(e, [&](const Stmt *x) {
    if (const auto *ref = dyn_cast<DeclRefExpr>(x))
      if (const auto *p = dyn_cast<ParmVarDecl>(ref->getDecl()); p && p->getType()->isIntegerType())
        out.insert(p->getName().str());
  });
  return out;
}

const ParmVarDecl *root_parameter(const Expr *base) {
  for (int depth = 0; base && depth < 16; ++depth) {
    base = base->IgnoreParenCasts();
    if (const auto *ref = dyn_cast<DeclRefExpr>(base)) {
      if (const auto *p = dyn_cast<ParmVarDecl>(ref->getDecl())) return p;
      const auto *v = dyn_cast<VarDecl>(ref->getDecl());
      if (!v || !v->hasLocalStorage() || !v->getType()->isPointerType() || !v->getInit()) return nullptr;
      base = v->getInit();
      continue;
    }
    if (const auto *b = dyn_cast<BinaryOperator>(base); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub)) {
      base = b->getLHS()->getType()->isPointerType() ? b->getLHS() : b->getRHS();
      continue;
    }
    if (const auto *u = dyn_cast<UnaryOperator>(base); u && u->getOpcode() == UO_AddrOf) {
      const auto *sub = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParenImpCasts());
      if (!sub) return nullptr;
      base = sub->getBase();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

void signed_terms(const Expr *e, bool negated, std::vector<const Expr *> &positive,
                  std::vector<const Expr *> &negative) {
  e = e->IgnoreParenCasts();
  if (const auto *b = dyn_cast<BinaryOperator>(e); b && (b->getOpcode() == BO_Add || b->getOpcode() == BO_Sub)) {
    signed_terms(b->getLHS(), negated, positive, negative);
    signed_terms(b->getRHS(), negated != (b->getOpcode() == BO_Sub), positive, negative);
    return;
  }
  (negated ? negative : positive).push_back(e);
}

bool unit_stride(const Expr *e, const VarDecl *var) {
  std::vector<const Expr *> pos, neg;
  signed_terms(e, false, pos, neg);
  int plain = 0;
  for (const Expr *t : neg)
    if (refers_to(t, var)) return false;
  for (const Expr *t : pos) {
    if (names(t, var))
      ++plain;
    else if (refers_to(t, var))
      return false;
  }
  return plain == 1;
}

const Expr *strip_int_casts(const Expr *e, const ASTContext &ctx, unsigned min_bits) {
  while (true) {
    e = e->IgnoreParenImpCasts();
    const auto *c = dyn_cast<ExplicitCastExpr>(e);
    if (!c || !c->getType()->isIntegerType() || !c->getSubExpr()->getType()->isIntegerType() ||
        ctx.getTypeSize(c->getType()) < min_bits)
      return e;
    e = c->getSubExpr();
  }
}

bool same_expr(const Expr *a, const Expr *b, const ASTContext &ctx) {
  llvm::FoldingSetNodeID x, y;
  a->IgnoreParenImpCasts()->Profile(x, ctx, /*Canonical=*/true);
  b->IgnoreParenImpCasts()->Profile(y, ctx, /*Canonical=*/true);
  return x == y;
}

std::string combine_text(const Accumulation &a, const std::string &x, const std::string &y) {
  switch (a.kind) {
  case Accumulation::Sum:
    return x + " + " + y;
  case Accumulation::Or:
    return x + " | " + y;
  case Accumulation::And:
    return x + " & " + y;
  case Accumulation::Xor:
    return x + " ^ " + y;
  case Accumulation::MaxMin:
    return a.combine + "(" + x + ", " + y + ")";
  }
  return x;
}

} // namespace kbcc::transform
