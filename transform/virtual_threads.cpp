#include "transform/virtual_threads.h"

#include "transform/analysis.h"
#include "transform/transform.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

namespace kbcc::transform {
using namespace clang;

namespace {

// A local of the thread (not shared, not global).
bool is_thread_local(const VarDecl *v) { return v && v->hasLocalStorage() && !v->hasAttr<CUDASharedAttr>(); }

// The kernel's top-level statements, split into phases of work between the
// barriers and the rewritten statements.
struct Layout {
  std::vector<std::vector<const Stmt *>> phases;
  bool ends_in_phase = false; // no barrier or rewritten statement after the last phase
};

Layout layout_of(const CompoundStmt *body, const std::map<const Stmt *, std::string> &rewritten) {
  Layout l;
  bool open = false;
  for (const Stmt *s : body->body()) {
    if (is_syncthreads(s) || rewritten.count(s)) {
      open = false;
    } else if (!declares_shared(s)) {
      if (!open) l.phases.emplace_back();
      l.phases.back().push_back(s);
      open = true;
    }
  }
  l.ends_in_phase = open;
  return l;
}

// Why `s` needs the threads of a warp to run together ("" when it does not).
std::string warp_dependence(const Stmt *s) {
  Effects fx = effects_in(s);
  if (fx.barrier) return "a barrier is not a top-level statement of the kernel's body";
  if (fx.warp_ops) return "it uses warp-level operations outside the collectives";
  if (fx.inline_asm || fx.unknown_calls) return "it has inline assembly or calls kbcc cannot see";
  return accesses_volatile(s) ? "it accesses memory through volatile (warp-synchronous code)" : "";
}

// The variable whose storage an assignment to `target` changes: through
// members and elements of local aggregates (not through pointers).
const Expr *assigned_root(const Expr *target) {
  const Expr *e = target->IgnoreParenImpCasts();
  for (;;) {
    if (const auto *m = dyn_cast<MemberExpr>(e); m && !m->isArrow()) {
      e = m->getBase()->IgnoreParenImpCasts();
    } else if (const auto *a = dyn_cast<ArraySubscriptExpr>(e);
               a && a->getBase()->IgnoreParenImpCasts()->getType()->isArrayType()) {
      e = a->getBase()->IgnoreParenImpCasts();
    } else {
      return e;
    }
  }
}

// The thread-local variable assigned under `s` that is not declared in `own`, if any.
const VarDecl *assigned_outside(const Stmt *s, const std::set<const VarDecl *> &own) {
  const VarDecl *found = nullptr;
  auto check = [&](const Expr *target) {
    const auto *ref = dyn_cast<DeclRefExpr>(assigned_root(target));
    const auto *v = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!found && is_thread_local(v) && !own.count(v)) found = v;
  };
  walk(s, [&](const Stmt *x) {
    if (const auto *b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp()) check(b->getLHS());
    if (const auto *u = dyn_cast<UnaryOperator>(x); u && (u->isIncrementDecrementOp() || u->getOpcode() == UO_AddrOf))
      check(u->getSubExpr());
  });
  return found;
}

std::set<const VarDecl *> declared_under(const std::vector<const Stmt *> &stmts) {
  std::set<const VarDecl *> out;
  for (const Stmt *s : stmts)
    walk(s, [&](const Stmt *x) {
      if (const auto *d = dyn_cast<DeclStmt>(x))
        for (const Decl *decl : d->decls())
          if (const auto *v = dyn_cast<VarDecl>(decl)) out.insert(v);
    });
  return out;
}

// The top-level declarations of the phases, in order, with the phase of each.
struct TopDecl {
  const DeclStmt *stmt;
  size_t phase;
};

std::vector<TopDecl> top_decls(const Layout &l) {
  std::vector<TopDecl> out;
  for (size_t p = 0; p < l.phases.size(); ++p)
    for (const Stmt *s : l.phases[p])
      if (const auto *d = dyn_cast<DeclStmt>(s)) out.push_back({d, p});
  return out;
}

// Why `d` cannot be computed again in a later phase ("" when it can): every
// variable it declares is a scalar that is never assigned (an array or
// struct could change element by element), and its initialiser reads
// neither memory nor a variable that may change.
std::string replay_refusal(const DeclStmt *d, const Stmt *body) {
  for (const Decl *x : d->decls()) {
    const auto *v = dyn_cast<VarDecl>(x);
    std::string name = v ? "`" + v->getName().str() + "`" : "a declaration";
    if (!v || !v->getInit()) return name + " is used after a barrier and has no initialiser";
    if (!v->getType()->isScalarType()) return name + " is used after a barrier and is not a scalar";
    if (assigns(body, v)) return name + " is used after a barrier and assigned";
    const Expr *init = v->getInit();
    Effects fx = effects_in(init);
    if (reads_memory(init) || writes_memory(init) || fx.atomics || fx.unknown_calls || fx.warp_ops)
      return name + " is used after a barrier and computed from memory";
    std::string why;
    walk(init, [&](const Stmt *s) {
      const auto *ref = dyn_cast<DeclRefExpr>(s);
      const auto *used = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      if (why.empty() && is_thread_local(used) && assigns(body, used))
        why = name + " is used after a barrier and computed from `" + used->getName().str() + "`, which changes";
    });
    if (!why.empty()) return why;
  }
  return {};
}

// The declarations of earlier phases that phase `p` needs computed again (with
// what they need), in source order.
std::vector<const DeclStmt *> replays_for(const std::vector<TopDecl> &decls, const std::vector<const Stmt *> &phase,
                                          size_t p) {
  std::vector<bool> needed(decls.size(), false);
  auto uses = [](const Stmt *s, const DeclStmt *d) {
    return std::any_of(d->decl_begin(), d->decl_end(), [&](const Decl *x) {
      const auto *v = dyn_cast<VarDecl>(x);
      return v && refers_to(s, v);
    });
  };
  for (size_t i = decls.size(); i-- > 0;) {
    if (decls[i].phase >= p) continue;
    bool use = std::any_of(phase.begin(), phase.end(), [&](const Stmt *s) { return uses(s, decls[i].stmt); });
    for (size_t j = i + 1; j < decls.size() && !use; ++j)
      use = needed[j] && uses(decls[j].stmt, decls[i].stmt);
    needed[i] = use;
  }
  std::vector<const DeclStmt *> out;
  for (size_t i = 0; i < decls.size(); ++i)
    if (needed[i]) out.push_back(decls[i].stmt);
  return out;
}

struct Substitution {
  size_t begin, end;
  std::string text;
};

// threadIdx.x and blockDim.x under `s`, read as the virtual thread's.
std::vector<Substitution> virtual_builtins(const KernelAst &k, const Stmt *s, long items, bool &in_macro) {
  std::vector<Substitution> out;
  walk(s, [&](const Stmt *x) {
    const auto *p = dyn_cast<PseudoObjectExpr>(x);
    auto b = p ? as_builtin(p) : std::nullopt;
    if (!b || b->dim != 0 || (b->var != Builtin::ThreadIdx && b->var != Builtin::BlockDim)) return;
    size_t begin = 0, end = 0;
    if (!k.span(p->getSourceRange(), begin, end)) {
      in_macro = true;
      return;
    }
    out.push_back(
        {begin, end, b->var == Builtin::ThreadIdx ? "__kbcc_vt" : "(blockDim.x * " + std::to_string(items) + "u)"});
  });
  return out;
}

// The text of `s` with its builtins read as the virtual thread's.
std::string virtual_text(const KernelAst &k, const Stmt *s, long items, bool &in_macro) {
  size_t begin = statement_begin(k, s), end = statement_end(k, s);
  if (begin == std::string::npos || end == std::string::npos) {
    in_macro = true;
    return {};
  }
  auto subs = virtual_builtins(k, s, items, in_macro);
  std::sort(subs.begin(), subs.end(), [](const auto &a, const auto &b) { return a.begin < b.begin; });
  std::string out;
  size_t at = begin;
  for (const auto &sub : subs) {
    out += k.source().substr(at, sub.begin - at) + sub.text;
    at = sub.end;
  }
  return out + k.source().substr(at, end - at);
}

} // namespace

std::string virtual_threads_refusal(const KernelAst &k, const std::map<const Stmt *, std::string> &rewritten) {
  const auto *body = dyn_cast_or_null<CompoundStmt>(k.kernel()->getBody());
  if (!body) return "the kernel has no body";
  Layout l = layout_of(body, rewritten);
  std::vector<TopDecl> decls = top_decls(l);
  for (size_t p = 0; p < l.phases.size(); ++p) {
    const auto &phase = l.phases[p];
    std::set<const VarDecl *> own = declared_under(phase);
    bool last = p + 1 == l.phases.size() && l.ends_in_phase;
    for (const Stmt *s : phase) {
      if (std::string why = warp_dependence(s); !why.empty()) return why;
      if (const VarDecl *v = assigned_outside(s, own))
        return "`" + v->getName().str() + "` is assigned by every thread's work and shared by the threads run together";
      if (has_return(s) && !last) return "a thread may return before a barrier";
      if (returns_in_loop(s)) return "a `return` inside a loop or switch";
    }
    for (const DeclStmt *d : replays_for(decls, phase, p))
      if (std::string why = replay_refusal(d, body); !why.empty()) return why;
  }
  return {};
}

Status add_virtual_threads(const KernelAst &k, long items, const std::map<const Stmt *, std::string> &rewritten,
                           Edits &e) {
  if (std::string why = virtual_threads_refusal(k, rewritten); !why.empty()) return not_applicable(why);
  const auto *body = cast<CompoundStmt>(k.kernel()->getBody());
  Layout l = layout_of(body, rewritten);
  std::vector<TopDecl> decls = top_decls(l);
  std::string n = std::to_string(items) + "u";
  bool in_macro = false;
  for (size_t p = 0; p < l.phases.size(); ++p) {
    const auto &phase = l.phases[p];
    std::string replays;
    for (const DeclStmt *d : replays_for(decls, phase, p))
      replays += virtual_text(k, d, items, in_macro) + "\n  ";
    size_t begin = statement_begin(k, phase.front()), end = statement_end(k, phase.back());
    if (begin == std::string::npos || end == std::string::npos)
      return not_applicable("the kernel is written in macros");
    std::vector<Substitution> subs;
    for (const Stmt *s : phase)
      for (auto &sub : virtual_builtins(k, s, items, in_macro))
        subs.push_back(std::move(sub));
    bool reads_thread = replays.find("__kbcc_vt") != std::string::npos ||
                        std::any_of(subs.begin(), subs.end(), [](const auto &x) { return x.text == "__kbcc_vt"; });
    // A phase that does not read the thread's index still runs once per virtual thread.
    e.insert(begin, "#pragma unroll\n  for (unsigned __kbcc_vk = 0u; __kbcc_vk < " + n + "; ++__kbcc_vk) {\n  " +
                        (reads_thread ? "const unsigned __kbcc_vt = __kbcc_vk * blockDim.x + threadIdx.x;\n  " : "") +
                        replays);
    for (const auto &sub : subs)
      e.replace(sub.begin, sub.end, sub.text);
    for (const Stmt *s : phase) {
      walk(s, [&](const Stmt *x) {
        size_t at = isa<ReturnStmt>(x) ? k.offset(x->getBeginLoc()) : std::string::npos;
        if (isa<ReturnStmt>(x) && at == std::string::npos) in_macro = true;
        if (at != std::string::npos) e.replace(at, at + 6, "continue");
      });
    }
    e.insert(end, "\n  }");
  }
  for (const auto &[stmt, text] : rewritten) {
    size_t begin = statement_begin(k, stmt), end = statement_end(k, stmt);
    if (begin == std::string::npos || end == std::string::npos)
      return not_applicable("the kernel is written in macros");
    e.replace(begin, end, text);
  }
  if (in_macro) return not_applicable("the thread's index is read in a macro");
  return Status::ok();
}

} // namespace kbcc::transform
