#include "transform/lockstep.h"

#include "cache/variant.h"
#include "tooling/source_range.h"
#include "transform/analysis.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/PrettyPrinter.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <set>

namespace kbcc::transform {
using namespace clang;

namespace {

// The virtual threads per thread in x and in y.
using Factors = std::array<long, 2>;

// The statement under its `#pragma`s and other attributes.
const Stmt *unwrapped(const Stmt *s) {
  while (const auto *a = dyn_cast_or_null<AttributedStmt>(s))
    s = a->getSubStmt();
  return s;
}

// Whether `s` is an empty statement or block.
bool empty_branch(const Stmt *s) {
  const auto *c = dyn_cast_or_null<CompoundStmt>(s);
  return isa_and_nonnull<NullStmt>(s) || (c && c->body_empty());
}

// Whether `s` holds a `__syncthreads()` call.
bool holds_barrier(const Stmt *s) {
  bool found = false;
  walk(s, [&](const Stmt *x) { found = found || is_syncthreads(x); });
  return found;
}

// Whether `s` holds a break or continue that leaves it (one not of a loop or
// switch inside it).
bool escapes(const Stmt *s, bool in_loop = false, bool in_switch = false) {
  if (!s) return false;
  if (isa<BreakStmt>(s)) return !in_loop && !in_switch;
  if (isa<ContinueStmt>(s)) return !in_loop;
  bool loop = isa<ForStmt>(s) || isa<WhileStmt>(s) || isa<DoStmt>(s) || isa<CXXForRangeStmt>(s);
  bool sw = isa<SwitchStmt>(s);
  for (const Stmt *c : s->children())
    if (escapes(c, in_loop || loop, in_switch || sw)) return true;
  return false;
}

// The statements of a loop's or branch's body: its block's, or the one.
std::vector<const Stmt *> statements_of(const Stmt *body) {
  if (const auto *c = dyn_cast_or_null<CompoundStmt>(body)) return {c->body_begin(), c->body_end()};
  if (!body) return {};
  return {body};
}

// Whether `fd` or a function it calls reads threadIdx or blockDim.
bool reads_thread_builtins(const FunctionDecl *fd, std::set<const FunctionDecl *> &seen) {
  if (!fd || !fd->hasBody() || !seen.insert(fd).second) return false;
  if (tooling::in_system_header(fd, fd->getASTContext().getSourceManager())) return false;
  bool found = false;
  walk(fd->getBody(), [&](const Stmt *x) {
    if (found) return;
    if (const auto *p = dyn_cast<PseudoObjectExpr>(x))
      if (auto b = as_builtin(p)) found = b->var == Builtin::ThreadIdx || b->var == Builtin::BlockDim;
    if (const auto *c = dyn_cast<CallExpr>(x)) found = found || reads_thread_builtins(c->getDirectCallee(), seen);
  });
  return found;
}

// Why the kernel as a whole cannot run several threads per thread ("" when
// it can): what relies on a warp's threads running together, what kbcc
// cannot see, control it cannot follow.
std::string kernel_refusal(const KernelAst &k) {
  const auto *body = dyn_cast_or_null<CompoundStmt>(k.kernel()->getBody());
  if (!body) return "the kernel has no body";
  Effects fx = effects_of(k.kernel());
  if (!fx.barrier && !fx.shared_memory) return "the kernel neither synchronizes its threads nor uses shared memory";
  if (fx.warp_ops) return "the kernel uses warp-level operations";
  if (fx.inline_asm) return "the kernel has inline assembly";
  if (fx.device_launch) return "the kernel launches kernels";
  if (fx.unknown_calls) return "the kernel calls functions kbcc cannot see";
  if (accesses_volatile(body)) return "the kernel accesses memory through volatile (warp-synchronous code)";
  std::string why;
  walk(body, [&](const Stmt *x) {
    if (!why.empty()) return;
    if (isa<GotoStmt>(x) || isa<IndirectGotoStmt>(x) || isa<LabelStmt>(x)) why = "the kernel uses goto";
    if (isa<LambdaExpr>(x)) why = "the kernel has a lambda";
    if (const auto *d = dyn_cast<DeclStmt>(x))
      for (const Decl *decl : d->decls())
        if (const auto *v = dyn_cast<VarDecl>(decl); v && v->isStaticLocal() && !v->hasAttr<CUDASharedAttr>())
          why = "the kernel has a static local";
    const auto *call = dyn_cast<CallExpr>(x);
    const FunctionDecl *fd = call ? call->getDirectCallee() : nullptr;
    if (!fd || !fd->getIdentifier()) return;
    std::string name = fd->getName().str();
    bool sync = name.rfind("__sync", 0) == 0 || name.rfind("__barrier", 0) == 0;
    if (sync && !is_syncthreads(call)) why = "the kernel synchronizes with `" + name + "`, not `__syncthreads()`";
    std::set<const FunctionDecl *> seen;
    if (why.empty() && reads_thread_builtins(fd, seen))
      why = "`" + name + "`, which the kernel calls, reads threadIdx or blockDim";
    if (why.empty() && fd->hasBody() && !tooling::in_system_header(fd, fd->getASTContext().getSourceManager()) &&
        effects_in(fd->getBody()).barrier)
      why = "`" + name + "`, which the kernel calls, synchronizes threads";
  });
  return why;
}

// One statement of the rewritten body and what it holds.
enum class Kind {
  Leaf,     // runs once per virtual thread
  Sync,     // __syncthreads();
  Verbatim, // runs once per thread: shared and uniform declarations, uniform assignments
  Block,    // { ... } holding structural statements
  Loop,     // a loop with a uniform header
  If,       // an `if` on a uniform condition
  Guard,    // an `if` without else on a condition of the thread, holding a barrier
  Exit      // `if (C) return;` before a barrier: a guard of what follows, on !C
};

struct Node {
  Kind kind = Kind::Leaf;
  const Stmt *stmt = nullptr; // as written (its #pragma included)
  std::vector<Node> body, otherwise;
  bool negated = false; // a guard on !C: an exit, or an `if` whose code is in its else
};

// The analysis of one kernel: parents, uniform variables, the body's tree.
class Analysis {
public:
  Analysis(const KernelAst &k, bool lockstep) : k_(k), lockstep_(lockstep) {
    body_ = cast<CompoundStmt>(k.kernel()->getBody());
    link(body_);
    for (const ParmVarDecl *p : k.kernel()->parameters())
      if (scalar(p)) candidates_.insert(p);
    for (auto it = counters_.begin(); it != counters_.end();) // set only by loop headers
      it = set_in_headers_only(*it) ? std::next(it) : counters_.erase(it);
    for (const VarDecl *c : counters_)
      candidates_.erase(c);
    uniform_ = candidates_;
    while (true) { // the greatest set of variables consistent with itself
      std::set<const VarDecl *> next;
      for (const VarDecl *v : uniform_)
        if (stays_uniform(v)) next.insert(v);
      if (next == uniform_) break;
      uniform_ = std::move(next);
    }
  }

  const CompoundStmt *body() const { return body_; }
  const KernelAst &kernel() const { return k_; }
  bool is_uniform(const VarDecl *v) const { return uniform_.count(v) > 0; }
  // A C-style loop counter (loop_counter: every loop that uses it sets it
  // first): no value passes from one loop to another, so each loop's own
  // header says whether it is uniform there, and one copy per thread serves
  // the virtual threads' loops one after another.
  bool is_counter(const VarDecl *v) const { return counters_.count(v) > 0; }
  bool lockstep() const { return lockstep_; }

  // Whether every thread of the block computes the same value for `e`.
  bool uniform(const Expr *e) const {
    if (!e) return true;
    e = e->IgnoreParens();
    if (auto b = as_builtin(e)) return b->var != Builtin::ThreadIdx;
    if (isa<IntegerLiteral>(e) || isa<FloatingLiteral>(e) || isa<CXXBoolLiteralExpr>(e) || isa<CharacterLiteral>(e) ||
        isa<UnaryExprOrTypeTraitExpr>(e) || isa<CXXNullPtrLiteralExpr>(e))
      return true;
    if (const auto *r = dyn_cast<DeclRefExpr>(e)) {
      if (isa<EnumConstantDecl>(r->getDecl())) return true;
      const auto *v = dyn_cast<VarDecl>(r->getDecl());
      if (!v) return false;
      if (uniform_.count(v) || counters_.count(v)) return true;
      if (isa<ParmVarDecl>(v) && !candidates_.count(v)) return !assigns(body_, v); // a struct passed by value
      if (v->hasLocalStorage() || isa<ParmVarDecl>(v)) return false;
      return v->isConstexpr() || (v->getType().isConstQualified() && !v->hasAttr<CUDASharedAttr>() && v->getInit() &&
                                  uniform(v->getInit()));
    }
    if (const auto *m = dyn_cast<MemberExpr>(e); m && !m->isArrow()) return uniform(m->getBase());
    if (const auto *c = dyn_cast<CastExpr>(e)) return uniform(c->getSubExpr());
    if (const auto *u = dyn_cast<UnaryOperator>(e))
      return !u->isIncrementDecrementOp() && u->getOpcode() != UO_Deref && u->getOpcode() != UO_AddrOf &&
             uniform(u->getSubExpr());
    if (const auto *b = dyn_cast<BinaryOperator>(e))
      return !b->isAssignmentOp() && b->getOpcode() != BO_Comma && uniform(b->getLHS()) && uniform(b->getRHS());
    if (const auto *c = dyn_cast<ConditionalOperator>(e))
      return uniform(c->getCond()) && uniform(c->getTrueExpr()) && uniform(c->getFalseExpr());
    if (const auto *call = dyn_cast<CallExpr>(e)) return pure_call(call);
    return false;
  }

  // Whether `e` only updates uniform variables with uniform values: `v = E`,
  // `v op= E`, `++v`, and comma lists of those.
  bool uniform_update(const Expr *e) const {
    if (!e) return false;
    e = e->IgnoreParenImpCasts();
    if (const auto *b = dyn_cast<BinaryOperator>(e)) {
      if (b->getOpcode() == BO_Comma) return uniform_update(b->getLHS()) && uniform_update(b->getRHS());
      const VarDecl *v = var_of(b->getLHS());
      return b->isAssignmentOp() && v && (uniform_.count(v) || counters_.count(v)) && uniform(b->getRHS());
    }
    if (const auto *u = dyn_cast<UnaryOperator>(e)) {
      const VarDecl *v = var_of(u->getSubExpr());
      return u->isIncrementDecrementOp() && v && (uniform_.count(v) || counters_.count(v));
    }
    return false;
  }

  // Whether loop `f`'s header is the same for every thread of the block and
  // the loop is one the rewrite keeps as a loop of the threads: it holds a
  // barrier, or (lockstep) no thread leaves it early.
  bool structural_for(const ForStmt *f) const {
    bool kept = holds_barrier(f) || (lockstep_ && !escapes(f->getBody()) && !has_return(f->getBody()));
    if (!kept || f->getConditionVariable()) return false;
    bool init = !f->getInit();
    if (const auto *d = dyn_cast_or_null<DeclStmt>(f->getInit()))
      init = std::all_of(d->decl_begin(), d->decl_end(), [&](const Decl *x) {
        const auto *v = dyn_cast<VarDecl>(x);
        return v && uniform_.count(v);
      });
    else if (const auto *e = dyn_cast_or_null<Expr>(f->getInit()))
      init = uniform_update(e);
    return init && uniform(f->getCond()) && (!f->getInc() || uniform_update(f->getInc()));
  }

  // Whether every statement enclosing `s` is one every thread runs (blocks,
  // loops with uniform headers, `if`s that hold a barrier); the guards
  // among them go to `guards`.
  bool structural_chain(const Stmt *s, std::vector<const Stmt *> *guards) const {
    for (const Stmt *c = s; c != body_;) {
      auto it = parent_.find(c);
      if (it == parent_.end()) return false;
      const Stmt *p = it->second;
      if (const auto *f = dyn_cast<ForStmt>(p)) {
        if (!structural_for(f)) return false;
      } else if (const auto *w = dyn_cast<WhileStmt>(p)) {
        if (!holds_barrier(w) || w->getConditionVariable() || !uniform(w->getCond())) return false;
      } else if (const auto *d = dyn_cast<DoStmt>(p)) {
        if (!holds_barrier(d) || !uniform(d->getCond())) return false;
      } else if (const auto *i = dyn_cast<IfStmt>(p)) {
        if (!holds_barrier(i) || c == i->getCond() || i->getInit() || i->getConditionVariable()) return false;
        if (!uniform(i->getCond())) {
          if (i->getElse() && !empty_branch(i->getThen())) return false;
          if (guards) guards->push_back(i);
        }
      } else if (!isa<CompoundStmt>(p) && !isa<AttributedStmt>(p)) {
        return false;
      }
      c = p;
    }
    return true;
  }

private:
  static bool scalar(const VarDecl *v) {
    QualType t = v->getType();
    return !t->isReferenceType() && t->isScalarType() && !t.isVolatileQualified();
  }

  // A call of a function from CUDA's or the system's headers on uniform
  // arithmetic arguments (min, max, fminf, ...).
  bool pure_call(const CallExpr *call) const {
    const FunctionDecl *fd = call->getDirectCallee();
    if (!fd || !fd->getIdentifier() || !tooling::in_system_header(fd, fd->getASTContext().getSourceManager()))
      return false;
    std::string n = fd->getName().str();
    if (n.rfind("__", 0) == 0 || n.find("atomic") != std::string::npos) return false;
    return std::all_of(call->arg_begin(), call->arg_end(),
                       [&](const Expr *a) { return a->getType()->isArithmeticType() && uniform(a); });
  }

  void link(const Stmt *s) {
    for (const Stmt *c : s->children()) {
      if (!c) continue;
      parent_.emplace(c, s);
      if (const auto *d = dyn_cast<DeclStmt>(c))
        for (const Decl *x : d->decls())
          if (const auto *v = dyn_cast<VarDecl>(x)) {
            decl_of_[v] = d;
            if (v->hasLocalStorage() && !v->hasAttr<CUDASharedAttr>() && scalar(v)) candidates_.insert(v);
            if (v->hasLocalStorage() && loop_counter(k_.kernel()->getBody(), v)) counters_.insert(v);
          }
      link(c);
    }
  }

  // Where write `w` stands: the statement it is (a block's expression
  // statement, through commas) or the for loop whose init or step it is.
  const Stmt *write_position(const Expr *w) const {
    const Stmt *top = w;
    for (auto it = parent_.find(top); it != parent_.end(); it = parent_.find(top)) {
      const auto *comma = dyn_cast<BinaryOperator>(it->second);
      if (comma && comma->getOpcode() == BO_Comma) {
        top = comma;
        continue;
      }
      if (isa<CompoundStmt>(it->second)) return top;
      if (const auto *f = dyn_cast<ForStmt>(it->second); f && (top == f->getInit() || top == f->getInc())) return f;
      return nullptr;
    }
    return nullptr;
  }

  // `x` when it assigns, increments or decrements `v`; nullptr otherwise.
  static const Expr *write_of(const Stmt *x, const VarDecl *v) {
    if (const auto *b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp() && names(b->getLHS(), v)) return b;
    if (const auto *u = dyn_cast<UnaryOperator>(x); u && u->isIncrementDecrementOp() && names(u->getSubExpr(), v))
      return u;
    return nullptr;
  }

  // Whether `x` takes `v`'s address.
  static bool takes_address(const Stmt *x, const VarDecl *v) {
    const auto *u = dyn_cast<UnaryOperator>(x);
    return u && u->getOpcode() == UO_AddrOf && names(u->getSubExpr(), v);
  }

  // Whether every write of `v` is in the init or step of a for loop.
  bool set_in_headers_only(const VarDecl *v) const {
    bool ok = true;
    walk(body_, [&](const Stmt *x) {
      if (const Expr *w = write_of(x, v)) ok = ok && isa_and_nonnull<ForStmt>(write_position(w));
      ok = ok && !takes_address(x, v);
    });
    return ok;
  }

  // Whether `v` keeps a value every thread computes alike, given uniform_:
  // declared at a statement every thread runs, from a uniform value, and
  // set only by uniform updates there, none under a guard its declaration
  // is not under.
  bool stays_uniform(const VarDecl *v) const {
    std::vector<const Stmt *> decl_guards;
    if (!isa<ParmVarDecl>(v)) {
      auto d = decl_of_.find(v);
      if (d == decl_of_.end()) return false;
      auto p = parent_.find(d->second);
      if (p == parent_.end()) return false;
      const auto *f = dyn_cast<ForStmt>(p->second);
      if (f && (f->getInit() != d->second || !structural_for(f))) return false;
      if (!f && !isa<CompoundStmt>(p->second)) return false;
      if (!structural_chain(d->second, &decl_guards)) return false;
      if (v->getInit() && !uniform(v->getInit())) return false;
    }
    bool ok = true;
    walk(body_, [&](const Stmt *x) {
      if (!ok) return;
      ok = !takes_address(x, v);
      for (const Expr *arg : reference_arguments(x))
        ok = ok && !names(arg, v);
      if (const auto *d = dyn_cast<DeclStmt>(x))
        for (const Decl *decl : d->decls())
          if (const auto *r = dyn_cast<VarDecl>(decl); r && r->getType()->isReferenceType() && r->getInit())
            ok = ok && !names(r->getInit(), v);
      const Expr *w = write_of(x, v);
      if (!w) return;
      const Stmt *at = write_position(w);
      std::vector<const Stmt *> guards;
      ok = at && structural_chain(at, &guards) && (at != w || uniform_update(w));
      if (const auto *f = dyn_cast_or_null<ForStmt>(at)) ok = ok && structural_for(f);
      for (const Stmt *g : guards)
        ok = ok && std::find(decl_guards.begin(), decl_guards.end(), g) != decl_guards.end();
    });
    return ok;
  }

  const KernelAst &k_;
  bool lockstep_;
  const CompoundStmt *body_ = nullptr;
  std::map<const Stmt *, const Stmt *> parent_;
  std::map<const VarDecl *, const DeclStmt *> decl_of_;
  std::set<const VarDecl *> candidates_, uniform_, counters_;
};

// Whether `s` is `if (C) return;` without else.
bool exit_branch(const Stmt *s) {
  const auto *i = dyn_cast<IfStmt>(s);
  return i && !i->getElse() && !i->getInit() && !i->getConditionVariable() && only_returns(i->getThen());
}

// Whether `e` changes state: assignments, increments, calls that write.
bool side_effects(const Expr *e) {
  bool found = writes_memory(e);
  walk(e, [&](const Stmt *x) {
    if (const auto *b = dyn_cast<BinaryOperator>(x)) found = found || b->isAssignmentOp();
    if (const auto *u = dyn_cast<UnaryOperator>(x)) found = found || u->isIncrementDecrementOp();
  });
  return found;
}

class TreeBuilder {
public:
  explicit TreeBuilder(const Analysis &a) : a_(a) {}
  std::string why;
  bool descended = false; // a loop without barriers kept as a loop of the threads (lockstep)

  // The nodes of `stmts`; `top`: the kernel's body (or what follows an exit there).
  std::vector<Node> build(const std::vector<const Stmt *> &stmts, bool top) {
    std::vector<Node> out;
    for (size_t i = 0; i < stmts.size() && why.empty(); ++i) {
      const Stmt *s = stmts[i];
      // The whole block leaves (not under a guard, where the threads that
      // skip it would go on).
      if (top && exit_branch(s) && a_.uniform(cast<IfStmt>(s)->getCond())) {
        out.push_back({Kind::Verbatim, s, {}, {}});
        continue;
      }
      if (top && exit_branch(s) &&
          std::any_of(stmts.begin() + i + 1, stmts.end(), [&](const Stmt *r) { return structural(r); })) {
        Node n{Kind::Exit, s, {}, {}, true};
        n.body = build({stmts.begin() + i + 1, stmts.end()}, true);
        out.push_back(std::move(n));
        break;
      }
      out.push_back(node(s));
      if (out.back().kind == Kind::Leaf) leaf_checks(s, top, stmts, i);
    }
    return out;
  }

private:
  // Whether `s` is not a leaf.
  bool structural(const Stmt *s) const {
    const Stmt *u = unwrapped(s);
    if (is_syncthreads(u) || holds_barrier(u)) return true;
    if (const auto *d = dyn_cast<DeclStmt>(u))
      return declares_shared(d) || std::all_of(d->decl_begin(), d->decl_end(), [&](const Decl *x) {
               const auto *v = dyn_cast<VarDecl>(x);
               return v && a_.is_uniform(v);
             });
    if (const auto *e = dyn_cast<Expr>(u)) return a_.uniform_update(e);
    const auto *f = dyn_cast<ForStmt>(u);
    return f && a_.lockstep() && a_.structural_for(f);
  }

  Node node(const Stmt *s) {
    const Stmt *u = unwrapped(s);
    if (is_syncthreads(u)) return {Kind::Sync, s, {}, {}};
    if (!structural(s)) return {Kind::Leaf, s, {}, {}};
    if (isa<DeclStmt>(u) || isa<Expr>(u)) {
      if (holds_barrier(u)) why = "a barrier is called inside an expression";
      return {Kind::Verbatim, s, {}, {}};
    }
    if (const auto *c = dyn_cast<CompoundStmt>(u)) return {Kind::Block, s, build(statements_of(c), false), {}};
    if (const auto *f = dyn_cast<ForStmt>(u)) {
      if (!a_.structural_for(f)) why = "a loop with a barrier has a header that may differ between the block's threads";
      descended = descended || !holds_barrier(f);
      return loop(s, f->getBody());
    }
    if (const auto *w = dyn_cast<WhileStmt>(u)) {
      if (w->getConditionVariable() || !a_.uniform(w->getCond()))
        why = "a loop with a barrier has a condition that may differ between the block's threads";
      return loop(s, w->getBody());
    }
    if (const auto *d = dyn_cast<DoStmt>(u)) {
      if (!a_.uniform(d->getCond()))
        why = "a loop with a barrier has a condition that may differ between the block's threads";
      return loop(s, d->getBody());
    }
    if (const auto *i = dyn_cast<IfStmt>(u)) {
      if (i->getInit() || i->getConditionVariable()) {
        why = "a branch with a barrier declares a variable in its condition";
        return {};
      }
      if (a_.uniform(i->getCond()))
        return {Kind::If, s, build(statements_of(i->getThen()), false), build(statements_of(i->getElse()), false)};
      if (side_effects(i->getCond())) why = "the condition of a branch with a barrier has side effects";
      if (i->getElse() && empty_branch(i->getThen())) // if (C) {} else { ... }: a guard on !C
        return {Kind::Guard, s, build(statements_of(i->getElse()), false), {}, true};
      if (i->getElse()) why = "a branch with a barrier on a condition of the thread has an else";
      return {Kind::Guard, s, build(statements_of(i->getThen()), false), {}};
    }
    why = std::string("a barrier inside a ") + u->getStmtClassName();
    return {};
  }

  Node loop(const Stmt *s, const Stmt *body) {
    if (escapes(body)) why = "a thread may leave a loop with barriers early (break or continue)";
    if (has_return(body)) why = "a thread may return inside a loop with barriers";
    return {Kind::Loop, s, build(statements_of(body), false), {}};
  }

  // A leaf may not leave a loop of the threads, and may return only where no
  // code of the threads follows it.
  void leaf_checks(const Stmt *s, bool top, const std::vector<const Stmt *> &stmts, size_t i) {
    if (escapes(s)) why = "a `break` or `continue` leaves a loop with barriers";
    if (!has_return(s)) return;
    if (returns_in_loop(s)) why = "a `return` inside a loop or switch";
    bool later = std::any_of(stmts.begin() + i + 1, stmts.end(), [&](const Stmt *r) { return structural(r); });
    if (!top || later) why = "a thread may return before a barrier";
  }

  const Analysis &a_;
};

// Where text may go before `s`: before its #pragma line, or before a macro
// invocation it starts with (`__shared__`).
size_t begin_of(const KernelAst &k, const Stmt *s) {
  size_t at = statement_begin(k, s), begin = 0, end = 0;
  if (at != std::string::npos || !k.file_span(s->getSourceRange(), begin, end)) return at;
  return begin;
}

// `text` without the white space that ends it.
std::string trimmed(std::string text) {
  text.erase(text.find_last_not_of(" \t\n") + 1);
  return text;
}

// Whether `line` (stripped) ends a statement or opens or closes a block,
// its trailing `//` comment aside (a `//` inside a literal taken for one).
bool completes(const std::string &line) {
  std::string code = trimmed(line.substr(0, line.find("//")));
  return code.empty() || code[0] == '#' || std::string(";{}").find(code.back()) != std::string::npos;
}

// `code` with each line indented two spaces deeper than the line that
// opened the brace it is in (braces in comments and literals not counted),
// from two spaces; a line that goes on from an incomplete one (a loop's body
// without braces, a long expression) two more.
std::string indented(const std::string &code) {
  std::string out, last = ";";
  std::vector<size_t> depth{2}; // the indentation inside each open brace
  bool block_comment = false;
  size_t at = 0;
  while (at < code.size()) {
    size_t eol = code.find('\n', at);
    std::string line = code.substr(at, eol == std::string::npos ? std::string::npos : eol - at);
    at = eol == std::string::npos ? code.size() : eol + 1;
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    line = line.substr(first);
    bool more = !block_comment && line[0] != '}' && line[0] != '{' && line[0] != '#' && !completes(last);
    size_t indent = 0;
    bool leading = true;
    std::vector<size_t> opened;
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (block_comment) {
        if (c == '*' && i + 1 < line.size() && line[i + 1] == '/') block_comment = false, ++i;
        continue;
      }
      if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') break;
      if (c == '/' && i + 1 < line.size() && line[i + 1] == '*') {
        block_comment = true;
        ++i;
        continue;
      }
      if (c == '"' || c == '\'') { // a literal: skip to its end
        for (++i; i < line.size() && line[i] != c; ++i)
          if (line[i] == '\\') ++i;
        continue;
      }
      if (c == '}' && !opened.empty()) {
        opened.pop_back();
      } else if (c == '}' && depth.size() > 1) {
        depth.pop_back();
      }
      if (leading) indent = depth.back() + (more ? 2 : 0);
      leading = leading && c == '}';
      if (c == '{') opened.push_back(0);
    }
    if (leading) indent = depth.back() + (more ? 2 : 0);
    for (size_t i = 0; i < opened.size(); ++i)
      depth.push_back(indent + 2);
    out += std::string(indent, ' ') + line + "\n";
    last = line;
  }
  return out;
}

struct Sub {
  size_t begin, end;
  std::string text;
};

// The rewritten body's text.
class Generator {
public:
  Generator(const Analysis &a, Factors f) : a_(a), k_(a.kernel()), f_(f), count_(f[0] * f[1]) {}
  std::string error;

  // The privatized variables: each run's declarations read outside the run,
  // and the parameters some thread assigns.
  void privatize(const std::vector<Node> &nodes) {
    for_each_run(nodes, [&](const std::vector<const Node *> &run) {
      for (const Node *n : run) {
        const auto *d = dyn_cast<DeclStmt>(unwrapped(n->stmt));
        if (!d) continue;
        bool split = false;
        for (const Decl *x : d->decls()) {
          const auto *v = dyn_cast<VarDecl>(x);
          if (!v) continue;
          int inside = 0;
          for (const Node *m : run)
            inside += references(m->stmt, v);
          bool shared = a_.is_uniform(v) || a_.is_counter(v); // one per thread
          if (!shared && references(a_.body(), v) > inside) private_var(v);
          split = split || shared || names_.count(v);
        }
        if (split) split_.insert(d);
      }
    });
    for (const ParmVarDecl *p : k_.kernel()->parameters()) {
      if (assigns(a_.body(), p) && !a_.is_uniform(p)) {
        private_var(p);
        params_.push_back(p);
      }
    }
  }

  std::string body(const std::vector<Node> &nodes) {
    std::string out;
    for (const ParmVarDecl *p : params_)
      out += array_decl(p) + vloop(names_[p] + "[__kbcc_vk] = " + p->getName().str() + ";\n", "");
    return out + list(nodes, "", false, 0);
  }

private:
  static void for_each_run(const std::vector<Node> &nodes,
                           const std::function<void(const std::vector<const Node *> &)> &fn) {
    std::vector<const Node *> run;
    for (const Node &n : nodes) {
      if (n.kind == Kind::Leaf) {
        run.push_back(&n);
        continue;
      }
      if (!run.empty()) fn(run);
      run.clear();
      for_each_run(n.body, fn);
      for_each_run(n.otherwise, fn);
    }
    if (!run.empty()) fn(run);
  }

  static void for_each_node(const std::vector<Node> &nodes, const std::function<void(const Node &)> &fn) {
    for (const Node &n : nodes) {
      fn(n);
      for_each_node(n.body, fn);
      for_each_node(n.otherwise, fn);
    }
  }

  void private_var(const VarDecl *v) {
    if (names_.count(v)) return;
    std::string name = "`" + v->getName().str() + "`";
    if (v->getType()->isReferenceType()) error = name + " carries a value across a barrier and is a reference";
    if (const Expr *init = v->getInit()) {
      const Expr *bare = init->IgnoreImplicit();
      if (v->getInitStyle() != VarDecl::CInit || isa<InitListExpr>(bare) || isa<CXXConstructExpr>(bare))
        error = name + " carries a value across a barrier and is initialised other than by `= value`";
    }
    QualType t = v->getType();
    if (t->isArrayType() && t->getAsArrayTypeUnsafe()->getElementType().isConstQualified())
      error = name + " carries a value across a barrier and is an array of constants";
    names_[v] = "__kbcc_" + v->getName().str() + "_" + std::to_string(names_.size());
  }

  // `T name[FX * FY];` for a privatized variable (const dropped: each copy is assigned).
  std::string array_decl(const VarDecl *v) const {
    QualType t = v->getType();
    t.removeLocalConst();
    std::string out;
    llvm::raw_string_ostream os(out);
    t.print(os, k_.context().getPrintingPolicy(), names_.at(v) + "[" + std::to_string(count_) + "]");
    return os.str() + ";\n";
  }

  // The substitutions under `s` (not under `skip`): blockDim.x and .y of the
  // coarsened dimensions everywhere; in a leaf, their threadIdx, privatized
  // variables and returns (the virtual thread is done) too.
  void subs_of(const Stmt *s, bool leaf, const Stmt *skip, std::vector<Sub> &out) {
    if (!s || s == skip) return;
    if (const auto *p = dyn_cast<PseudoObjectExpr>(s)) {
      auto b = as_builtin(p);
      if (b && b->dim < 2 && f_[b->dim] > 1 &&
          (b->var == Builtin::BlockDim || (leaf && b->var == Builtin::ThreadIdx))) {
        size_t begin = 0, end = 0;
        if (!k_.span(p->getSourceRange(), begin, end)) error = "the thread's index is read in a macro";
        std::string d(1, "xy"[b->dim]);
        out.push_back({begin, end,
                       b->var == Builtin::ThreadIdx ? "__kbcc_v" + d
                                                    : "(blockDim." + d + " * " + std::to_string(f_[b->dim]) + "u)"});
      }
      if (b) return;
    }
    if (leaf) {
      if (const auto *r = dyn_cast<DeclRefExpr>(s))
        if (const auto *v = dyn_cast<VarDecl>(r->getDecl()); v && names_.count(v)) {
          size_t begin = 0, end = 0;
          if (!k_.span(r->getSourceRange(), begin, end))
            error = "a variable carried across a barrier is named in a macro";
          out.push_back({begin, end, names_[v] + "[__kbcc_vk]"});
        }
      if (isa<ReturnStmt>(s)) {
        size_t at = k_.offset(s->getBeginLoc());
        if (at == std::string::npos) error = "a `return` is written in a macro";
        out.push_back({at, at + 6, "continue"});
      }
    }
    for (const Stmt *c : s->children())
      subs_of(c, leaf, skip, out);
  }

  // The text of [begin, end) with the substitutions of `s` in it applied.
  std::string rewrite(const Stmt *s, size_t begin, size_t end, bool leaf, const Stmt *skip = nullptr) {
    if (begin == std::string::npos || end == std::string::npos || end < begin) {
      error = "the kernel's body is written in macros";
      return {};
    }
    std::vector<Sub> subs;
    subs_of(s, leaf, skip, subs);
    std::sort(subs.begin(), subs.end(), [](const Sub &x, const Sub &y) { return x.begin < y.begin; });
    std::string out;
    size_t at = begin;
    for (const Sub &sub : subs) {
      if (sub.begin < at || sub.end > end) continue;
      out += k_.source().substr(at, sub.begin - at) + sub.text;
      at = sub.end;
    }
    return out + k_.source().substr(at, end - at);
  }

  std::string statement(const Stmt *s, bool leaf) { return rewrite(s, begin_of(k_, s), statement_end(k_, s), leaf); }

  // The text of `v`'s initializer, its substitutions applied (`leaf`: those of a leaf).
  std::string init_text(const VarDecl *v, bool leaf = true) {
    size_t begin = 0, end = 0;
    if (!k_.file_span(v->getInit()->getSourceRange(), begin, end)) error = "a declaration is written in a macro";
    return rewrite(v->getInit(), begin, end, leaf);
  }

  // `T name = init;` for one variable of a declaration that declares others.
  std::string declaration(const VarDecl *v, const std::string &name, bool leaf) {
    if (v->getInit() && v->getInitStyle() != VarDecl::CInit)
      error = "`" + v->getName().str() + "` is declared with others and initialised other than by `= value`";
    std::string out;
    llvm::raw_string_ostream os(out);
    v->getType().print(os, k_.context().getPrintingPolicy(), name);
    os.flush();
    return out + (v->getInit() ? " = " + init_text(v, leaf) : "") + ";\n";
  }

  // A loop over the virtual threads around `code`, under `guard`'s copy:
  // virtual thread k is (k % fx, k / fx) in units of the block's extents.
  std::string vloop(const std::string &code, const std::string &guard) const {
    std::string fx = std::to_string(f_[0]) + "u";
    std::string open =
        "#pragma unroll\nfor (unsigned __kbcc_vk = 0u; __kbcc_vk < " + std::to_string(count_) + "u; ++__kbcc_vk) {\n";
    if (code.find("__kbcc_vx") != std::string::npos)
      open += std::string("const unsigned __kbcc_vx = ") + (f_[1] > 1 ? "(__kbcc_vk % " + fx + ")" : "__kbcc_vk") +
              " * blockDim.x + threadIdx.x;\n";
    if (code.find("__kbcc_vy") != std::string::npos)
      open += std::string("const unsigned __kbcc_vy = ") + (f_[0] > 1 ? "(__kbcc_vk / " + fx + ")" : "__kbcc_vk") +
              " * blockDim.y + threadIdx.y;\n";
    if (guard.empty()) return open + code + "}\n";
    return open + "if (" + guard + "[__kbcc_vk]) {\n" + code + "}\n}\n";
  }

  // A run's loop over the virtual threads; before it, the uniform variables
  // its declarations hold and the copies of those it carries.
  std::string run(const std::vector<const Node *> &leaves, const std::string &guard) {
    std::string before, code;
    for (const Node *n : leaves) {
      const auto *d = dyn_cast<DeclStmt>(unwrapped(n->stmt));
      if (!d || !split_.count(d)) {
        code += trimmed(statement(n->stmt, true)) + "\n";
        continue;
      }
      for (const Decl *x : d->decls()) {
        const auto *v = cast<VarDecl>(x);
        if (a_.is_uniform(v) || a_.is_counter(v)) {
          before += declaration(v, v->getName().str(), false);
        } else if (names_.count(v)) {
          before += array_decl(v);
          if (v->getInit()) code += names_[v] + "[__kbcc_vk] = " + init_text(v) + ";\n";
        } else {
          code += declaration(v, v->getName().str(), true);
        }
      }
    }
    return code.empty() ? before : before + vloop(code, guard);
  }

  std::string list(const std::vector<Node> &nodes, const std::string &guard, bool slow, int depth) {
    std::string out;
    std::vector<const Node *> leaves;
    for (const Node &n : nodes) {
      if (n.kind == Kind::Leaf) {
        leaves.push_back(&n);
        continue;
      }
      if (!leaves.empty()) out += run(leaves, guard);
      leaves.clear();
      out += structural(n, guard, slow, depth);
    }
    if (!leaves.empty()) out += run(leaves, guard);
    return out;
  }

  std::string structural(const Node &n, const std::string &guard, bool slow, int depth) {
    const Stmt *u = unwrapped(n.stmt);
    switch (n.kind) {
    case Kind::Sync:
      return "__syncthreads();\n";
    case Kind::Verbatim:
      return trimmed(statement(n.stmt, false)) + "\n";
    case Kind::Block:
      return "{\n" + list(n.body, guard, slow, depth) + "}\n";
    case Kind::Loop:
      return loop(n, u, guard, slow, depth);
    case Kind::If: {
      const auto *i = cast<IfStmt>(u);
      std::string out = trimmed(rewrite(i, begin_of(k_, n.stmt), begin_of(k_, i->getThen()), false, i->getThen())) +
                        " {\n" + list(n.body, guard, slow, depth) + "}\n";
      return i->getElse() ? out + "else {\n" + list(n.otherwise, guard, slow, depth) + "}\n" : out;
    }
    case Kind::Guard:
    case Kind::Exit:
      return guarded(n, guard, slow, depth);
    case Kind::Leaf:
      break;
    }
    return {};
  }

  std::string loop(const Node &n, const Stmt *u, const std::string &guard, bool slow, int depth) {
    std::string inner = " {\n" + list(n.body, guard, slow, depth) + "}\n";
    if (const auto *d = dyn_cast<DoStmt>(u))
      return "do" + inner + rewrite(d, k_.offset(d->getWhileLoc()), statement_end(k_, n.stmt), false, d->getBody()) +
             "\n";
    const Stmt *body = isa<ForStmt>(u) ? cast<ForStmt>(u)->getBody() : cast<WhileStmt>(u)->getBody();
    return trimmed(rewrite(u, begin_of(k_, n.stmt), begin_of(k_, body), false, body)) + inner;
  }

  // A guard: its condition kept per virtual thread, and its code run without
  // the test when it holds for the whole block.
  std::string guarded(const Node &n, const std::string &outer, bool slow, int depth) {
    const auto *i = cast<IfStmt>(unwrapped(n.stmt));
    size_t begin = 0, end = 0;
    if (!k_.file_span(i->getCond()->getSourceRange(), begin, end)) error = "a condition is written in a macro";
    std::string cond = "(" + rewrite(i->getCond(), begin, end, true) + ")";
    if (n.negated) cond = "!" + cond;
    std::string g = "__kbcc_on" + std::to_string(guards_++);
    std::string out = "bool " + g + "[" + std::to_string(count_) + "];\n" +
                      vloop(g + "[__kbcc_vk] = " + (outer.empty() ? "" : outer + "[__kbcc_vk] && ") + cond + ";\n", "");
    bool shared = false; // declared in both copies, it would take its memory twice
    for_each_node(n.body, [&](const Node &m) { shared = shared || declares_shared(unwrapped(m.stmt)); });
    if (slow || depth >= 2 || shared) return out + list(n.body, g, true, depth + 1);
    std::string all;
    for (long v = 0; v < count_; ++v)
      all += (v ? " && " : "") + g + "[" + std::to_string(v) + "]";
    return out + "if (__syncthreads_and(" + all + ")) {\n" + list(n.body, "", false, depth + 1) + "} else {\n" +
           list(n.body, g, true, depth + 1) + "}\n";
  }

  const Analysis &a_;
  const KernelAst &k_;
  Factors f_;
  long count_;
  std::map<const VarDecl *, std::string> names_;
  std::set<const DeclStmt *> split_; // declarations written a variable at a time
  std::vector<const ParmVarDecl *> params_;
  int guards_ = 0;
};

// `head`, the kernel's text up to its body, with its __launch_bounds__
// maximum divided by `count`: the blocks it bounds now have `count` times
// fewer threads, each running `count` virtual threads, which may use the
// registers a smaller block leaves.
std::string relaxed_bounds(const KernelAst &k, std::string head, long count) {
  const auto *bounds = k.kernel()->getAttr<CUDALaunchBoundsAttr>();
  if (!bounds) return head;
  auto most = constant_value(bounds->getMaxThreads(), k.context());
  size_t begin = 0, end = 0;
  if (!most || *most < count || !k.file_span(bounds->getMaxThreads()->getSourceRange(), begin, end) ||
      end > head.size())
    return head;
  return head.replace(begin, end - begin, std::to_string(*most / count));
}

// The rewritten kernel's text, or the reason there is none.
Expected<std::string> rewritten(const KernelAst &k, Factors f, bool lockstep, bool *descended = nullptr) {
  if (std::string why = kernel_refusal(k); !why.empty()) return not_applicable(why);
  Analysis a(k, lockstep);
  TreeBuilder tree(a);
  std::vector<Node> nodes = tree.build(statements_of(a.body()), true);
  if (!tree.why.empty()) return not_applicable(tree.why);
  if (descended) *descended = tree.descended;
  Generator g(a, f);
  g.privatize(nodes);
  std::string body = g.body(nodes);
  if (!g.error.empty()) return not_applicable(g.error);
  size_t open = k.offset(a.body()->getLBracLoc()), close = k.offset(a.body()->getRBracLoc());
  if (open == std::string::npos || close == std::string::npos) return not_applicable("the body is written in a macro");
  return relaxed_bounds(k, k.source().substr(0, open + 1), f[0] * f[1]) + "\n" + indented(body) +
         k.source().substr(close);
}

bool reads_builtin(const Stmt *body, int dim) {
  bool found = false;
  walk(body, [&](const Stmt *x) {
    const auto *p = dyn_cast<PseudoObjectExpr>(x);
    if (!p || found) return;
    if (auto b = as_builtin(p)) found = b->dim == dim && (b->var == Builtin::ThreadIdx || b->var == Builtin::BlockDim);
  });
  return found;
}

// The factors to offer for `k` launched as `launches`: rows (y) and columns
// (x) for a kernel that reads threadIdx.y or blockDim.y and whose captured
// blocks all have rows, x alone otherwise; the first value of each kind first.
std::vector<Factors> candidate_factors(const KernelAst &k, const std::vector<launch::Launch> &launches) {
  bool rows = reads_builtin(k.kernel()->getBody(), 1) &&
              std::all_of(launches.begin(), launches.end(), [](const launch::Launch &l) { return l.block[1] > 1; });
  if (!rows) return {{4, 1}, {2, 1}, {8, 1}};
  return {{1, 4}, {1, 2}, {1, 8}, {2, 4}, {2, 2}, {4, 4}, {2, 8}};
}

// "FX" or "FXxFY", as `factor`'s values are written.
std::string factor_text(Factors f) {
  return f[1] == 1 ? std::to_string(f[0]) : std::to_string(f[0]) + "x" + std::to_string(f[1]);
}

} // namespace

Expected<std::vector<Axis>> lockstep_space(const Input &in) {
  std::vector<Factors> candidates = candidate_factors(*in.ast, in.launches);
  bool descended = false;
  auto text = rewritten(*in.ast, candidates.front(), true, &descended);
  if (!text) return text.error();
  Axis factor{"factor", {}};
  for (Factors f : candidates) {
    bool fits = std::all_of(in.launches.begin(), in.launches.end(), [&](const launch::Launch &l) {
      return l.block[0] % f[0] == 0 && l.block[1] % f[1] == 0 &&
             (long)l.block[0] * l.block[1] * l.block[2] / (f[0] * f[1]) >= 32;
    });
    if (fits) factor.values.push_back(factor_text(f));
  }
  if (factor.values.empty())
    return not_applicable(
        std::string("no factor of ") +
        (candidates.front()[1] > 1 ? "2, 4 or 8 rows (with 1, 2 or 4 columns)" : "2, 4 or 8 threads in x") +
        " per thread divides every captured block and leaves it 32 threads");
  Axis order{"order", {"lockstep"}};
  if (descended) order.values.emplace_back("serial");
  return std::vector<Axis>{factor, order};
}

Expected<Output> lockstep_apply(const Input &in, const Params &params) {
  auto [fx, fy] = shape_param(params, "factor", factor_text(candidate_factors(*in.ast, in.launches).front()));
  auto valid = [](long f) { return f == 1 || f == 2 || f == 4 || f == 8 || f == 16; };
  if (!valid(fx) || !valid(fy) || fx * fy < 2 || fx * fy > 16)
    return not_applicable("factor must be FX or FXxFY, powers of two with a product of 2 to 16");
  auto order = params.count("order") ? params.at("order") : std::string("lockstep");
  if (order != "lockstep" && order != "serial") return not_applicable("order must be lockstep or serial");
  auto text = rewritten(*in.ast, {fx, fy}, order == "lockstep");
  if (!text) return text.error();
  Output out;
  out.source = *text;
  out.numerics = cache::kNumericsExact;
  launch::LaunchMapping m;
  for (int d = 0; d < 2; ++d) {
    long f = d ? fy : fx;
    if (f == 1) continue;
    std::string e = std::string("block.") + "xy"[d];
    m.block[d] = e + " / " + std::to_string(f);
    m.preconditions.push_back(e + " % " + std::to_string(f) + " == 0");
  }
  out.launch = m;
  return out;
}

} // namespace kbcc::transform
