// sliding_window: the lowering of register_caching_reuse for 1-D windows
// (and, for kernels whose block-stride loops re-read elements, its cached
// form: transform/stride_cache.h). A
// global-index kernel (x only) whose threads each read X[i + t + c] (or
// X[i - t + c]) in a loop over t (i the thread's global index, c the same
// for every thread, X an array the kernel only reads) re-reads every element
// of X once per value of t. Here each thread runs `items` consecutive
// threads of the original and keeps the `items` elements they read at one t
// in registers: per step it loads one new element, runs the loop body of
// each of its threads with the read served from the registers, and shifts
// the window. The loops over the threads are unrolled, so their locals stay
// in registers.
//
// Legal when, on top of index_space (no barriers, warp operations, shared
// memory or unseen calls; builtins only in the global-index idiom):
//   - the loop is a top-level counted loop (t from lo, step 1, to hi) whose
//     bounds are the same for every thread (built from parameters, literals
//     and never-assigned locals computed from those);
//   - its body stores nothing to memory and has no return, break or goto,
//     so every thread runs every step;
//   - X is a pointer parameter used only in reads X[...], so no thread can
//     change what another reads;
//   - a windowed read sits under `if`s only (not in a nested loop, a switch,
//     a conditional operator or the right of && and ||), after no `continue`
//     other than `if (C) continue;`; the conditions on its path read only
//     j = i +- t + c (a local of the body, or written out), parameters and
//     uniform locals. The original thread then reads X[k] at a step exactly
//     when its path holds for j = k, and a register is loaded only for such
//     a k that a live thread of the group needs;
//   - the statements before the loop declare scalars (each becomes one
//     value per thread of the group) and may end a thread early with
//     `return` (the thread then takes no part); the loop may also be at the
//     top level of `if (C) { ... }`, the body's last statement, whose test
//     ends the thread the same way.
// A block whose threads are all live, whose window fits the shared buffer
// and whose conditions that are bounds on j (signed, uniform bounds) hold
// over its whole window stages that window in shared memory once and runs a
// copy of the loop with those conditions decided; that copy reads four
// elements at a time where they are 4-byte and t counts up, and serves the
// reads every step makes of other read-only arrays (a filter w[t], see
// Table) from shared memory too. Each thread's own operations keep their
// order: the results are bit-identical.
#include "cache/variant.h"
#include "transform/edits.h"
#include "transform/index_space.h"
#include "transform/stride_cache.h"
#include "transform/transform.h"
#include "transform/uniform.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <functional>
#include <map>

namespace kbcc::transform {
using namespace clang;

namespace {

// A read X[J] to serve from the window, with the `if`s on its path.
struct WindowRead {
  const ArraySubscriptExpr *read = nullptr;
  std::vector<std::pair<const Expr *, bool>> path; // condition, taken branch (true: then)
};

// A table: reads P[f(t)] of a read-only array P other than the window's, f
// built from t and uniform values, that the fast copy runs at every step.
// The block stages P[f(t)] for every t of the loop once, in shared memory.
struct Table {
  std::vector<const ArraySubscriptExpr *> reads; // all of P[f(t)]
  std::string value;                             // P[f(t)] as text, t written __kbcc_tt
  std::string element, vector;                   // P's element type and its 4-vector (or empty)
};

// A bound j >= A (lower) or j < B (upper) of a guard, as the window check.
struct IntervalTerm {
  bool lower = false;
  std::string op, bound; // "j OP bound", bound as uniform text
};

// A guard decided by bounds on j: its value wherever they hold.
struct Proven {
  std::vector<IntervalTerm> bounds;
  bool holds = true;
};

struct Window {
  IndexSpace space;
  const CompoundStmt *body = nullptr;
  const IfStmt *wrapper = nullptr;         // `if (C) { ... }`, the body's last statement, holding the loop
  const CompoundStmt *scope = nullptr;     // the block whose top level holds the loop
  size_t loop_at = 0;                      // index of the loop among the scope's statements
  std::vector<const Stmt *> before, after; // what runs before (the wrapper's test aside) and after the loop
  CountedLoop loop;
  const ParmVarDecl *array = nullptr;
  const VarDecl *offset_var = nullptr; // local j = J of the loop body, if any
  std::string c;                       // offset_of's key of the window: the sign of t, then c
  std::string lo, hi;                  // uniform texts: the loop's first and last-plus-one t
  std::vector<WindowRead> reads;
  PerItemLocals expanded;                // locals declared before the loop
  std::map<const Expr *, Proven> proven; // guards decided by bounds on j
  std::vector<Table> tables;
  std::string element, loop_type, offset_type;
  std::string vector;                   // the 4-element vector type of `element` (float4 ...), or empty
  std::vector<const VarDecl *> indexes; // index variables (locals holding the global index)
};

// J = i + d*t + c with i the global index (an index variable or the idiom)
// once with a + sign, t the loop variable once with sign d: "+c" or "-c"
// (the sign of d, then c as uniform text).
std::optional<std::string> offset_of(const KernelAst &k, const Expr *j, const Window &w) {
  const std::vector<const VarDecl *> &indexes = w.indexes;
  int seen_i = 0, seen_t = 0, sign_t = 0;
  std::string c = "(0";
  bool ok = true;
  std::function<void(const Expr *, bool)> visit = [&](const Expr *e, bool plus) {
    e = e->IgnoreParenImpCasts();
    if (const auto *bin = dyn_cast<BinaryOperator>(e);
        bin && (bin->getOpcode() == BO_Add || bin->getOpcode() == BO_Sub)) {
      visit(bin->getLHS(), plus);
      visit(bin->getRHS(), bin->getOpcode() == BO_Add ? plus : !plus);
      return;
    }
    const VarDecl *v = var_of(e);
    bool is_index = (v && std::find(indexes.begin(), indexes.end(), v) != indexes.end()) ||
                    (as_global_index(e) && as_global_index(e)->dim == 0);
    if (is_index) {
      seen_i += plus ? 1 : -100;
      return;
    }
    if (v == w.loop.var) {
      ++seen_t;
      sign_t = plus ? 1 : -1;
      return;
    }
    auto u = uniform_text(k, e, {});
    if (!u) {
      ok = false;
      return;
    }
    c += (plus ? " + " : " - ") + *u;
  };
  visit(j, true);
  if (!ok || seen_i != 1 || seen_t != 1 || !j->getType()->isSignedIntegerType()) return std::nullopt;
  return (sign_t > 0 ? "+" : "-") + c + ")";
}

// The direction d and the text of c of an offset_of result.
int direction(const std::string &offset) { return offset[0] == '-' ? -1 : 1; }
std::string constant(const std::string &offset) { return offset.substr(1); }

// The substitution of the window's index: the local j, and any expression
// i + t + c with the window's c, written as `text`.
Subst j_subst(const KernelAst &k, const Window &w, const std::string &c, const std::string &text) {
  Subst out;
  if (w.offset_var) out.vars[w.offset_var] = text;
  out.expr = [&k, &w, c, text](const Expr *e) -> std::optional<std::string> {
    if (!refers_to(e, w.loop.var)) return std::nullopt;
    auto mine = offset_of(k, e, w);
    return mine && *mine == c ? std::optional<std::string>(text) : std::nullopt;
  };
  return out;
}

// `term` (or its negation) as a bound on `j` (j >= A, j > A, j < B, j <= B, either side).
std::optional<IntervalTerm> interval_term(const KernelAst &k, const Expr *term, const Window &w, bool negate) {
  const auto *b = dyn_cast<BinaryOperator>(term->IgnoreParenImpCasts());
  if (!b || !b->isRelationalOp()) return std::nullopt;
  if (!b->getLHS()->getType()->isSignedIntegerType() || !b->getRHS()->getType()->isSignedIntegerType())
    return std::nullopt;
  Subst j = j_subst(k, w, w.c, "");
  auto is_j = [&](const Expr *e) {
    return (w.offset_var && var_of(e) == w.offset_var) || j.expr(e->IgnoreParenImpCasts());
  };
  bool left = is_j(b->getLHS()), right = is_j(b->getRHS());
  if (left == right) return std::nullopt;
  BinaryOperatorKind op = b->getOpcode();
  if (right) op = BinaryOperator::reverseComparisonOp(op);
  if (negate) op = BinaryOperator::negateComparisonOp(op);
  if (op == BO_EQ || op == BO_NE) return std::nullopt;
  auto bound = uniform_text(k, left ? b->getRHS() : b->getLHS(), {});
  if (!bound) return std::nullopt;
  return IntervalTerm{op == BO_GE || op == BO_GT, BinaryOperator::getOpcodeStr(op).str(), *bound};
}

// The reads of `w.array` in the loop body that can come from the window, with
// their paths; Error when the array is used otherwise anywhere.
Status find_reads(const KernelAst &k, Window &w) {
  if (!only_read(k, w.array))
    return not_applicable("'" + w.array->getName().str() + "' is used other than by reads of its elements");
  for_each_read(w.loop.loop->getBody(), [&](const ArraySubscriptExpr *sub, const Path &path, bool plain) {
    if (!plain || var_of(sub->getBase()) != w.array) return false;
    const Expr *j = sub->getIdx()->IgnoreParenImpCasts();
    const VarDecl *jv = var_of(j);
    bool through_local = jv && jv == w.offset_var;
    auto c_text = through_local ? std::optional<std::string>(w.c) : offset_of(k, j, w);
    bool uniform_path = true;
    for (const auto &[cond, taken] : path)
      uniform_path = uniform_path && c_text && uniform_text(k, cond, j_subst(k, w, *c_text, "0"));
    if (!c_text || (!w.c.empty() && *c_text != w.c) || !uniform_path) return false;
    w.c = *c_text;
    w.reads.push_back({sub, path});
    return true;
  });
  if (w.reads.empty())
    return not_applicable("the loop reads no element " + w.array->getName().str() +
                          "[i + t + c] under conditions on that index only");
  return Status::ok();
}

// The local j = i + t + c declared at the top of the loop body, if any.
void find_offset_var(const KernelAst &k, Window &w) {
  const auto *body = dyn_cast<CompoundStmt>(w.loop.loop->getBody());
  if (!body) return;
  for (const Stmt *s : body->body()) {
    const auto *d = dyn_cast<DeclStmt>(s);
    if (!d || !d->isSingleDecl()) continue;
    const auto *v = dyn_cast<VarDecl>(d->getSingleDecl());
    if (!v || !v->getInit() || !v->getType()->isIntegerType() || assigns(body, v)) continue;
    if (auto c = offset_of(k, v->getInit(), w)) {
      w.offset_var = v;
      w.c = *c;
      return;
    }
  }
}

// Records in `w.proven` whether `cond`, passed on its `taken` branch, is
// decided by bounds on j the window check can prove: a taken condition
// A && B ... of bounds holds (true), a condition A || B ... whose terms all
// fail within bounds, passed by its else, does not (false). False when it is
// not such a condition.
bool prove(const KernelAst &k, Window &w, const Expr *cond, bool taken) {
  if (w.proven.count(cond)) return true;
  std::vector<const Expr *> terms;
  split_terms(cond, taken ? BO_LAnd : BO_LOr, terms);
  Proven p{{}, taken};
  for (const Expr *t : terms)
    if (auto b = interval_term(k, t, w, !taken)) p.bounds.push_back(*b);
  if (p.bounds.size() != terms.size()) return false;
  w.proven[cond] = p;
  return true;
}

// Which guards of the reads' paths the window check decides.
void find_proven(const KernelAst &k, Window &w) {
  for (const WindowRead &r : w.reads)
    for (const auto &[cond, taken] : r.path)
      prove(k, w, cond, taken);
}

// The tables of the loop (see Table): reads of a read-only pointer parameter
// of arithmetic elements, other than the window's array, whose index is built
// from t and uniform values and whose path the window check decides taken, so
// that every step of the fast copy reads them. At most four.
void find_tables(const KernelAst &k, Window &w) {
  const ASTContext &ctx = k.context();
  for (const ParmVarDecl *p : k.kernel()->parameters()) {
    if (p == w.array || !p->getType()->isPointerType() || assigns(k.kernel()->getBody(), p) || !only_read(k, p))
      continue;
    QualType element = p->getType()->getPointeeType();
    if (!element->isArithmeticType()) continue;
    std::string vector = vector_of(element);
    for_each_read(w.loop.loop->getBody(), [&](const ArraySubscriptExpr *sub, const Path &path, bool plain) {
      if (var_of(sub->getBase()) != p || !plain || !refers_to(sub->getIdx(), w.loop.var)) return false;
      Window tried = w; // the guards proven for this read count only if all are
      for (const auto &[cond, taken] : path)
        if (!prove(k, tried, cond, taken) || tried.proven[cond].holds != taken) return false;
      auto index = uniform_text(k, sub->getIdx(), Subst{{{w.loop.var, "__kbcc_tt"}}, nullptr});
      if (!index) return false;
      std::string value = p->getName().str() + "[" + *index + "]";
      auto same = std::find_if(w.tables.begin(), w.tables.end(), [&](const Table &t) { return t.value == value; });
      if (same == w.tables.end() && w.tables.size() == 4) return false;
      w.proven = tried.proven;
      if (same == w.tables.end())
        w.tables.push_back({{sub}, value, type_text(element, ctx), vector});
      else
        same->reads.push_back(sub);
      return true;
    });
  }
}

// The window of a loop at the top level of `scope` (the body, or the block of
// the body's last statement `wrapper`); `reason` says why there is none.
std::optional<Window> search(const KernelAst &k, const Window &base, const CompoundStmt *scope, const IfStmt *wrapper,
                             std::string &reason) {
  std::vector<const Stmt *> prefix;
  if (wrapper)
    for (const Stmt *st : base.body->body()) {
      if (st == wrapper) break;
      prefix.push_back(st);
    }
  size_t n = 0;
  for (const Stmt *st : scope->body()) {
    const auto *f = dyn_cast<ForStmt>(st);
    size_t at = n++;
    if (!f) continue;
    auto loop = counted_loop(f);
    if (!loop) {
      reason = "the loop is not a counted loop (t from a start, step 1, to a bound)";
      continue;
    }
    Window cand = base;
    cand.loop = *loop;
    cand.wrapper = wrapper;
    cand.scope = scope;
    cand.loop_at = at;
    cand.before = prefix;
    cand.before.insert(cand.before.end(), scope->body_begin(), scope->body_begin() + at);
    cand.after.assign(scope->body_begin() + at + 1, scope->body_end());
    auto lo = uniform_text(k, loop->init, {}), hi = uniform_text(k, loop->bound, {});
    if (!lo || !hi) {
      reason = "the loop's bounds differ between threads";
      continue;
    }
    if (!loop->var->getType()->isSignedIntegerType()) {
      reason = "the loop variable is not a signed integer";
      continue;
    }
    cand.lo = *lo;
    cand.hi = loop->inclusive ? "(" + *hi + " + 1)" : *hi;
    const Stmt *lb = loop->loop->getBody();
    if (writes_memory(lb) || effects_in(lb).atomics) {
      reason = "the loop body stores to memory";
      continue;
    }
    if (has_return(lb) || has_break_or_goto(lb)) {
      reason = "the loop body has return, break or goto";
      continue;
    }
    std::string specific;
    for (const ParmVarDecl *p : k.kernel()->parameters()) {
      if (!p->getType()->isPointerType() || !refers_to(lb, p) || assigns(k.kernel()->getBody(), p)) continue;
      Window attempt = cand;
      attempt.array = p;
      find_offset_var(k, attempt);
      auto st2 = find_reads(k, attempt);
      if (!st2) { // keep the reason of an array the loop does read at i + t + c
        if (attempt.reads.empty() && !specific.empty()) continue;
        reason = st2.error().message;
        if (reason.find("is used other than") != std::string::npos) specific = reason;
        continue;
      }
      auto locals = per_item_locals(k.kernel()->getBody(), attempt.before, "before the loop");
      if (!locals) {
        reason = locals.error().message;
        return std::nullopt;
      }
      attempt.expanded = *locals;
      const ASTContext &ctx = k.context();
      attempt.element = type_text(p->getType()->getPointeeType(), ctx);
      attempt.vector = vector_of(p->getType()->getPointeeType());
      attempt.loop_type = type_text(loop->var->getType(), ctx);
      attempt.offset_type =
          type_text(attempt.offset_var ? attempt.offset_var->getType()
                                       : attempt.reads[0].read->getIdx()->IgnoreParenImpCasts()->getType(),
                    ctx);
      find_proven(k, attempt);
      find_tables(k, attempt);
      return attempt;
    }
  }
  return std::nullopt;
}

Expected<Window> analyze(const KernelAst &k) {
  auto s = index_space(k, /*allow_2d=*/false, /*allow_atomics=*/true);
  if (!s) return s.error();
  Window w;
  w.space = *s;
  w.body = s->body;
  w.indexes = index_variables(w.body, 0);
  const std::string none = "the kernel has no top-level loop that reads a parameter array at i + t + c";
  std::string reason = none;
  if (auto found = search(k, w, w.body, nullptr, reason)) return *found;
  // The body's last statement `if (C) { ... }` (the thread's guard): the loop
  // may be at the top level of its block.
  if (const IfStmt *wrapper = work_block(w.body)) {
    std::string inner_reason = none;
    if (auto found = search(k, w, cast<CompoundStmt>(wrapper->getThen()), wrapper, inner_reason)) return *found;
    if (reason == none) reason = inner_reason;
  }
  return not_applicable(reason);
}

// Replacements that make code run as thread `__kbcc_r` of the group: the
// idiom reads the item's index, expanded locals their own element, `return`
// jumps to `label`.
std::vector<Repl> item_repls(const KernelAst &k, const Window &w, const std::string &label) {
  std::vector<Repl> out;
  const std::string &src = k.source();
  for (const GlobalIndex &g : w.space.occurrences) {
    size_t b = 0, x = 0;
    if (k.span(g.expr->getSourceRange(), b, x)) out.push_back({b, x, as_index(src.substr(b, x - b), "__kbcc_item")});
  }
  walk(w.body, [&](const Stmt *s) {
    size_t b = 0, x = 0;
    if (const auto *ref = dyn_cast<DeclRefExpr>(s)) {
      const auto *v = dyn_cast<VarDecl>(ref->getDecl());
      if (v && w.expanded.per_item(v) && k.span(ref->getSourceRange(), b, x))
        out.push_back({b, x, v->getName().str() + "[__kbcc_r]"});
    }
    if (isa<ReturnStmt>(s) && k.span(s->getSourceRange(), b, x))
      out.push_back({b, past_semicolon(src, x), "goto " + label + ";"});
  });
  return out;
}

// Whether `s` (a statement or expression of the body) is written outside macros.
bool spans(const KernelAst &k, const Stmt *s) {
  size_t b = 0, x = 0;
  return k.span(s->getSourceRange(), b, x);
}

const std::string kItem = "    const unsigned long long __kbcc_item = ((unsigned long long)blockIdx.x * blockDim.x + "
                          "threadIdx.x) * ";

// Whether the idiom occurs in [b, x).
bool idiom_in(const KernelAst &k, const Window &w, size_t b, size_t x) {
  for (const GlobalIndex &g : w.space.occurrences) {
    size_t gb = 0, gx = 0;
    if (k.span(g.expr->getSourceRange(), gb, gx) && gb >= b && gx <= x) return true;
  }
  return false;
}

// The statements before the loop, once per thread of the group: [b, x) of
// the definition, where a wrapper `if (C) {` becomes `if (!(C)) goto`.
std::string prologue_text(const KernelAst &k, const Window &w, long items, size_t b, size_t x) {
  const std::string &src = k.source();
  std::vector<Repl> repls = item_repls(k, w, "__kbcc_p");
  // Declarations become assignments of the thread's element.
  for (const Stmt *st : w.before) {
    const auto *d = dyn_cast<DeclStmt>(st);
    if (!d) continue;
    std::string text;
    for (const Decl *decl : d->decls()) {
      const auto *v = cast<VarDecl>(decl);
      if (!v->getInit()) continue;
      size_t ib = 0, ix = 0;
      k.span(v->getInit()->getSourceRange(), ib, ix);
      text += v->getName().str() + "[__kbcc_r] = " + spliced(src, ib, ix, disjoint(repls)) + "; ";
    }
    repls.push_back({statement_begin(k, d), statement_end(k, d), text.empty() ? ";" : text});
  }
  bool returns = w.wrapper != nullptr;
  for (const Stmt *st : w.before)
    returns = returns || has_return(st);
  if (w.wrapper) { // `if (C) {` up to the loop's block: the item ends unless C
    size_t cb = 0, cx = 0;
    k.span(w.wrapper->getCond()->getSourceRange(), cb, cx);
    repls.push_back({statement_begin(k, w.wrapper), k.offset(w.scope->getLBracLoc()) + 1,
                     "if (!(" + spliced(src, cb, cx, disjoint(repls)) + ")) goto __kbcc_p;"});
  }
  repls = disjoint(repls);
  std::string decls = "  bool __kbcc_live[" + std::to_string(items) + "];\n";
  decls += item_declarations(k, w.expanded, items);
  return decls + "  #pragma unroll\n  for (int __kbcc_r = 0; __kbcc_r < " + std::to_string(items) +
         "; ++__kbcc_r) {\n" + (idiom_in(k, w, b, x) ? kItem + std::to_string(items) + "ull + __kbcc_r;\n" : "") +
         "    __kbcc_live[__kbcc_r] = false;\n" + spliced(src, b, x, repls) + "\n    __kbcc_live[__kbcc_r] = true;\n" +
         (returns ? "    __kbcc_p:;\n" : "") + "  }\n";
}

// When the statements after the loop are one store `P[v] = E;` (P a
// pointer to an arithmetic type, v an expanded local, E without side
// effects and reading no memory): the group's stores as one store of
// items * sizeof(*P) bytes (4, 8 or 16), taken at run time when every
// item is live, v is consecutive over them and &P[v[0]] is aligned to that
// size, then `else {` (closed by the caller). Empty when the statements are
// not of that form.
std::string combined_store_text(const KernelAst &k, const Window &w, long items) {
  auto store = w.after.size() == 1 ? plain_store(w.after[0], k.context()) : std::nullopt;
  const auto *idx = store ? dyn_cast<DeclRefExpr>(store->index->IgnoreParenImpCasts()) : nullptr;
  const auto *v = idx ? dyn_cast<VarDecl>(idx->getDecl()) : nullptr;
  if (!v || !w.expanded.per_item(v)) return "";
  const QualType elem = store->element;
  const auto bytes = static_cast<long>(k.context().getTypeSize(elem) / 8) * items;
  const std::string vec = store_vector(bytes);
  const Expr *rhs = store->value;
  const ParmVarDecl *p = store->array;
  size_t rb = 0, rx = 0;
  if (vec.empty() || !k.span(rhs->getSourceRange(), rb, rx) || idiom_in(k, w, rb, rx)) return "";
  const std::string R = std::to_string(items), name = v->getName().str(),
                    at = p->getName().str() + " + " + name + "[0]";
  std::string cond = "__kbcc_live[0]";
  for (long r = 1; r < items; ++r) {
    const std::string rs = std::to_string(r);
    cond.append(" && __kbcc_live[").append(rs).append("] && ").append(name).append("[").append(rs).append("] == ");
    cond.append(name).append("[0] + ").append(rs);
  }
  std::string out =
      "  if (" + cond + " && ((unsigned long long)(" + at + ") & " + std::to_string(bytes - 1) + "ull) == 0) {\n";
  out +=
      "    union { " + vec + " __kbcc_all; " + type_text(elem, k.context()) + " __kbcc_one[" + R + "]; } __kbcc_o;\n";
  out += "    #pragma unroll\n    for (int __kbcc_r = 0; __kbcc_r < " + R +
         "; ++__kbcc_r) __kbcc_o.__kbcc_one[__kbcc_r] = " +
         spliced(k.source(), rb, rx, disjoint(item_repls(k, w, "__kbcc_e"))) + ";\n";
  out += "    *reinterpret_cast<" + vec + " *>(" + at + ") = __kbcc_o.__kbcc_all;\n  } else {\n";
  return out;
}

// The statements after the loop ([b, x) of the definition), once per live
// thread of the group (one store of the group when combined_store_text
// applies).
std::string epilogue_text(const KernelAst &k, const Window &w, long items, size_t b, size_t x) {
  bool returns = false;
  for (const Stmt *st : w.after)
    returns = returns || has_return(st);
  const std::string combined = combined_store_text(k, w, items);
  return combined + "  #pragma unroll\n  for (int __kbcc_r = 0; __kbcc_r < " + std::to_string(items) +
         "; ++__kbcc_r) {\n    if (!__kbcc_live[__kbcc_r]) continue;\n" +
         (idiom_in(k, w, b, x) ? kItem + std::to_string(items) + "ull + __kbcc_r;\n" : "") + "    {" +
         spliced(k.source(), b, x, disjoint(item_repls(k, w, "__kbcc_e"))) + "    }\n" +
         (returns ? "    __kbcc_e:;\n" : "") + "  }\n" + (combined.empty() ? "" : "  }\n");
}

// Condition under which the original reads element `__kbcc_k` of the array:
// the path of some windowed read with j = __kbcc_k (`fast`: proven guards hold).
std::string load_guard(const KernelAst &k, const Window &w, bool fast) {
  Subst subst = j_subst(k, w, w.c, "((" + w.offset_type + ")(__kbcc_k))");
  std::string any;
  for (const WindowRead &r : w.reads) {
    std::string all = "true";
    for (const auto &[cond, taken] : r.path) {
      if (fast && w.proven.count(cond)) continue;
      std::string c = *uniform_text(k, cond, subst);
      all += taken ? " && " + c : " && !" + c;
    }
    if (all == "true") return "true";
    any += (any.empty() ? "(" : " || (") + all + ")";
  }
  return any;
}

// Elements beyond the block's own items that the shared window holds.
constexpr long kHalo = 512;

// Where element `o` of the block's window lives in shared memory: the
// elements of phase o % items lie together, so the warp's reads at one step
// (o = items * lane + constant, one phase) are consecutive, and a phase's
// stride, 32 / items more than a multiple of 32, spreads the warp's staging
// writes (consecutive o) over distinct banks. `items` divides 32.
long phase_stride(long items, long block) {
  long per_phase = (block * items + kHalo + items - 1) / items;
  return (per_phase + 31) / 32 * 32 + 32 / items;
}
std::string shared_index(const std::string &o, long items, long block) {
  return "(" + o + ") % " + std::to_string(items) + "u * " + std::to_string(phase_stride(items, block)) + "u + (" + o +
         ") / " + std::to_string(items) + "u";
}

// The block's window check: every thread live, the loop not empty, the
// window within `cap` elements, and every proven bound holding from the
// block's first read (jmin) to its last (jmax).
std::string fast_condition(const Window &w, const std::string &cap) {
  std::string out = "__kbcc_all && __kbcc_lo < __kbcc_hi && __kbcc_jmax - __kbcc_jmin < " + cap;
  for (const auto &[cond, p] : w.proven)
    for (const IntervalTerm &t : p.bounds)
      out += " && " + std::string(t.lower ? "__kbcc_jmin " : "__kbcc_jmax ") + t.op + " (long long)" + t.bound;
  return out;
}

// Whether the fast copy reads its window four elements at a time: four items
// per thread, a window going up, elements of four bytes. The shared window is
// then laid out in order, so a thread's four-element groups are aligned.
bool vectorized(const Window &w, long items) { return items == 4 && direction(w.c) > 0 && !w.vector.empty(); }

// The fast loop over t of a vectorized window: steps run in groups of four;
// per group a thread loads the next four elements of its window with one
// shared-memory read, into __kbcc_v[4..7] behind the group's own [0..3], and
// the item r of step q reads __kbcc_v[r + q]; the reads of a table of 4-byte
// elements come from four of them loaded the same way, the others' from
// shared memory one at a time. The steps left over run as one
// more group. `bodies(read, table)` is one step's bodies, their window reads
// served by `read`, table i's by table(i).
using Bodies = std::function<std::string(const std::string &, const std::function<std::string(size_t)> &)>;
std::string vector_loop_text(const Window &w, const Bodies &bodies) {
  const std::string &v = w.vector, t = w.loop.var->getName().str();
  // One group's loads: the next four elements of the window, four of each table.
  std::string loads = "      " + unpack4(v, "__kbcc_sv[__kbcc_g + 1]", "__kbcc_v", 4) + "\n";
  for (size_t i = 0; i < w.tables.size(); ++i) {
    const Table &t = w.tables[i];
    if (t.vector.empty()) continue;
    std::string u = "__kbcc_u" + std::to_string(i);
    loads += "      " + t.element + " " + u + "[4]; " +
             unpack4(t.vector,
                     "reinterpret_cast<const " + t.vector + " *>(__kbcc_tb" + std::to_string(i) + ")[__kbcc_g]", u, 0) +
             "\n";
  }
  // Step q of the group, under `guard`.
  auto steps = [&](const std::string &guard) {
    return "      #pragma unroll\n      for (int __kbcc_q = 0; __kbcc_q < 4; ++__kbcc_q) " + guard + "{\n" +
           "      __attribute__((unused)) const " + w.loop_type + " " + t + " = __kbcc_t + __kbcc_q;\n" +
           bodies("__kbcc_v[__kbcc_r + __kbcc_q]",
                  [&](size_t i) {
                    return w.tables[i].vector.empty() ? "__kbcc_tb" + std::to_string(i) + "[" + t + " - __kbcc_lo]"
                                                      : "__kbcc_u" + std::to_string(i) + "[__kbcc_q]";
                  }) +
           "      }\n";
  };
  std::string out = "    const " + v + " *__kbcc_sv = reinterpret_cast<const " + v + " *>(__kbcc_sh) + threadIdx.x;\n";
  out += "    " + w.element + " __kbcc_v[8];\n    " + unpack4(v, "__kbcc_sv[0]", "__kbcc_v", 0) + "\n";
  out += "    " + w.loop_type + " __kbcc_t = " + w.lo + ";\n    unsigned __kbcc_g = 0;\n";
  out += "    for (; __kbcc_t + 4 <= " + w.hi + "; __kbcc_t += 4, ++__kbcc_g) {\n" + loads + steps("");
  out += "      #pragma unroll\n      for (int __kbcc_s = 0; __kbcc_s < 4; ++__kbcc_s) __kbcc_v[__kbcc_s] = "
         "__kbcc_v[__kbcc_s + 4];\n    }\n";
  // The steps left over: one more group, its loads reaching up to 4 elements
  // past the window and 3 past the tables (within the buffers), its steps
  // past the loop skipped.
  return out + "    if (__kbcc_t < " + w.hi + ") {\n" + loads + steps("if (__kbcc_t + __kbcc_q < " + w.hi + ") ") +
         "    }\n";
}

// One copy of the loop over t (`fast`: the window check holds).
std::string loop_text(const KernelAst &k, const Window &w, long items, long block, bool fast) {
  const std::string &src = k.source();
  const Stmt *lb = w.loop.loop->getBody();
  size_t b = 0, x = 0;
  k.span(lb->getSourceRange(), b, x);
  x = isa<CompoundStmt>(lb) ? x : past_semicolon(src, x);
  std::vector<Repl> repls;
  if (fast && w.offset_var) { // its guards are gone: keep nvcc from reporting it unused
    const Stmt *decl = nullptr;
    walk(lb, [&](const Stmt *s) {
      if (const auto *d = dyn_cast<DeclStmt>(s); d && d->isSingleDecl() && d->getSingleDecl() == w.offset_var) decl = d;
    });
    if (size_t at = decl ? statement_begin(k, decl) : std::string::npos; at != std::string::npos)
      repls.push_back({at, at, "__attribute__((unused)) "});
  }
  if (fast)
    for (const auto &[cond, p] : w.proven) {
      size_t cb = 0, cx = 0;
      k.span(cond->getSourceRange(), cb, cx);
      repls.push_back({cb, cx, p.holds ? "true" : "false"});
    }
  for (Repl &r : item_repls(k, w, "__kbcc_unused"))
    repls.push_back(std::move(r));
  std::string R = std::to_string(items), t = w.loop.var->getName().str();
  std::string S = std::to_string(phase_stride(items, block)) + "u";
  const bool up = direction(w.c) > 0;
  const std::string fresh = up ? std::to_string(items - 1) : "0"; // the slot loaded at each step
  // Slot `slot` of the window at step t: element o = items * threadIdx.x + m of
  // the block's shared window (fast; m = t - lo + slot going up, hi - 1 - t +
  // slot going down), or element i0 + slot +- t + c of the array under its
  // reads' guard, when a live thread of the group reads it (general).
  auto fast_load = [&](const std::string &m, const std::string &slot) {
    return "{ const unsigned __kbcc_m = " + m + "; __kbcc_w[" + slot + "] = __kbcc_sh[__kbcc_m % " + R + "u * " + S +
           " + threadIdx.x + __kbcc_m / " + R + "u]; }";
  };
  auto fast_m = [&](const std::string &slot) {
    return up ? "(unsigned)(" + t + " - __kbcc_lo) + " + slot : "(unsigned)(__kbcc_hi - 1 - " + t + ") + " + slot;
  };
  std::string guard = load_guard(k, w, false);
  auto load = [&](const std::string &slot) {
    return "{ const long long __kbcc_k = __kbcc_i0 + " + slot + (up ? " + " : " - ") + "(long long)" + t +
           " + __kbcc_c; if (__kbcc_need(" + t + ", " + slot + ") && " + guard + ") __kbcc_w[" + slot +
           "] = " + w.array->getName().str() + "[__kbcc_k]; }";
  };
  // The slots a step inherits, loaded before the first step.
  std::string preload = "    #pragma unroll\n    for (int __kbcc_s = " + std::string(up ? "0" : "1") + "; __kbcc_s < " +
                        (up ? std::to_string(items - 1) : R) + "; ++__kbcc_s) ";
  // The body for each (live) thread of the group, its windowed reads served
  // by `read` and, when `table` is given, the reads of table i by table(i).
  auto bodies = [&](const std::string &read, const std::function<std::string(size_t)> &table = nullptr) {
    std::vector<Repl> all = repls;
    auto serve = [&](const ArraySubscriptExpr *e, const std::string &text) {
      size_t rb = 0, rx = 0;
      k.span(e->getSourceRange(), rb, rx);
      all.push_back({rb, rx, text});
    };
    for (const WindowRead &r : w.reads)
      serve(r.read, read);
    for (size_t i = 0; table && i < w.tables.size(); ++i)
      for (const ArraySubscriptExpr *e : w.tables[i].reads)
        serve(e, table(i));
    std::string out = "      #pragma unroll\n      for (int __kbcc_r = 0; __kbcc_r < " + R + "; ++__kbcc_r) {\n";
    if (!fast) out += "        if (!__kbcc_live[__kbcc_r]) continue;\n";
    if (idiom_in(k, w, b, x)) out += "  " + kItem + R + "ull + __kbcc_r;\n";
    return out + "        " + spliced(src, b, x, disjoint(all)) + "\n      }\n";
  };
  if (fast && vectorized(w, items)) return vector_loop_text(w, bodies);
  // One step: the bodies (the fast copy's tables read from shared memory), then the shift.
  std::string step = fast
                         ? bodies("__kbcc_w[__kbcc_r]",
                                  [&](size_t i) { return "__kbcc_tb" + std::to_string(i) + "[" + t + " - __kbcc_lo]"; })
                         : bodies("__kbcc_w[__kbcc_r]");
  step += up ? "      #pragma unroll\n      for (int __kbcc_s = 0; __kbcc_s + 1 < " + R +
                   "; ++__kbcc_s) __kbcc_w[__kbcc_s] = __kbcc_w[__kbcc_s + 1];\n"
             : "      #pragma unroll\n      for (int __kbcc_s = " + std::to_string(items - 1) +
                   "; __kbcc_s > 0; --__kbcc_s) __kbcc_w[__kbcc_s] = __kbcc_w[__kbcc_s - 1];\n";
  std::string header =
      "    for (" + w.loop_type + " " + t + " = " + w.lo + "; " + t + " < " + w.hi + "; ++" + t + ") {\n";
  if (!fast)
    return preload + "{ const " + w.loop_type + " " + t + " = " + w.lo + "; " + load("__kbcc_s") + " }\n" + header +
           "      " + load(fresh) + "\n" + step + "    }\n";
  std::string out = preload + "{ __attribute__((unused)) const " + w.loop_type + " " + t + " = " + w.lo + "; " +
                    fast_load(fast_m("__kbcc_s"), "__kbcc_s") + " }\n";
  if (!up) return out + header + "      " + fast_load(fast_m(fresh), fresh) + "\n" + step + "    }\n";
  // Going up, steps run in groups of `items`: each load's phase is a
  // constant and the shifts become register renaming. Then the rest.
  out += "    " + w.loop_type + " __kbcc_t = " + w.lo + ";\n";
  out += "    for (unsigned __kbcc_g = 0; __kbcc_t + " + R + " <= " + w.hi + "; __kbcc_t += " + R + ", ++__kbcc_g) {\n";
  out += "      #pragma unroll\n      for (int __kbcc_q = 0; __kbcc_q < " + R + "; ++__kbcc_q) {\n";
  out += "      __attribute__((unused)) const " + w.loop_type + " " + t + " = __kbcc_t + __kbcc_q;\n";
  out += "      { const unsigned __kbcc_m = __kbcc_q + " + fresh + "; __kbcc_w[" + fresh + "] = __kbcc_sh[__kbcc_m % " +
         R + "u * " + S + " + threadIdx.x + __kbcc_g + __kbcc_m / " + R + "u]; }\n";
  out += step + "      }\n    }\n";
  out += "    for (; __kbcc_t < " + w.hi + "; ++__kbcc_t) {\n      const " + w.loop_type + " " + t + " = __kbcc_t;\n";
  out += "      " + fast_load(fast_m(fresh), fresh) + "\n" + step + "    }\n";
  return out;
}

// The loop that copies the window [jmin, jmax] of `w`'s array into
// __kbcc_sh. In order and unguarded, 16 bytes at a time when the first
// element is 16-byte aligned and the element's size divides 16 (the rest,
// and every other case, one element at a time).
std::string staging_text(const KernelAst &k, const Window &w, long items, long block, bool in_order) {
  const std::string a = w.array->getName().str(), guard = load_guard(k, w, true);
  std::string out =
      "      {\n        const int __kbcc_cnt = (int)(__kbcc_jmax - __kbcc_jmin) + 1;\n        int __kbcc_e0 = 0;\n";
  if (in_order && guard == "true") {
    out += "        if (16 % sizeof(" + w.element + ") == 0 && ((unsigned long long)(" + a +
           " + __kbcc_jmin) & 15ull) == 0) {\n";
    out += "          constexpr int __kbcc_vw = sizeof(" + w.element + ") <= 16 ? (int)(16 / sizeof(" + w.element +
           ")) : 1;\n";
    out += "          const uint4 *__kbcc_src = reinterpret_cast<const uint4 *>(" + a + " + __kbcc_jmin);\n";
    out += "          for (int __kbcc_e = threadIdx.x; __kbcc_e < __kbcc_cnt / __kbcc_vw; __kbcc_e += blockDim.x)\n"
           "            reinterpret_cast<uint4 *>(__kbcc_sh)[__kbcc_e] = __kbcc_src[__kbcc_e];\n";
    out += "          __kbcc_e0 = __kbcc_cnt / __kbcc_vw * __kbcc_vw;\n        }\n";
  }
  out += "        for (int __kbcc_e = __kbcc_e0 + threadIdx.x; __kbcc_e < __kbcc_cnt; __kbcc_e += blockDim.x) {\n"
         "          const long long __kbcc_k = __kbcc_jmin + __kbcc_e;\n          if (" +
         guard + ") __kbcc_sh[" +
         (in_order ? std::string("__kbcc_e") : shared_index("(unsigned)__kbcc_e", items, block)) + "] = " + a +
         "[__kbcc_k];\n        }\n      }\n";
  return out;
}

// The loop over t, replaced by the windowed loops.
std::string window_text(const KernelAst &k, const Window &w, long items, long block) {
  std::string R = std::to_string(items), d = direction(w.c) > 0 ? "+" : "-";
  std::string out = "  {\n";
  out += "    const long long __kbcc_i0 = (long long)(((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * " +
         R + "ull);\n";
  out += "    const long long __kbcc_lo = (long long)" + w.lo + ", __kbcc_hi = (long long)" + w.hi +
         ", __kbcc_c = (long long)" + constant(w.c) + ";\n";
  out += "    bool __kbcc_all = true;\n    #pragma unroll\n    for (int __kbcc_r = 0; __kbcc_r < " + R +
         "; ++__kbcc_r) __kbcc_all = __kbcc_all && __kbcc_live[__kbcc_r];\n";
  // Whether a live thread q of the group reads slot s of step t: it does at
  // step t +- (s - q), if that step is in the loop's range.
  out += "    auto __kbcc_need = [&](long long __kbcc_t0, long long __kbcc_s0) {\n      bool __kbcc_n = false;\n"
         "      #pragma unroll\n      for (int __kbcc_q = 0; __kbcc_q < " +
         R + "; ++__kbcc_q) {\n        const long long __kbcc_tq = __kbcc_t0 " + d +
         " (__kbcc_s0 - __kbcc_q);\n"
         "        __kbcc_n = __kbcc_n || (__kbcc_live[__kbcc_q] && __kbcc_tq >= __kbcc_lo && __kbcc_tq < __kbcc_hi);\n"
         "      }\n      return __kbcc_n;\n    };\n";
  out += "    " + w.element + " __kbcc_w[" + R + "];\n";
  // The elements the block's threads read, [jmin, jmax], staged once.
  std::string cap = std::to_string(block * items + kHalo);
  const bool in_order = vectorized(w, items); // else by phase
  // In order, a thread's last group may read up to 4 elements past the window.
  out += "    __shared__ " + std::string(in_order ? "__align__(16) " : "") + w.element + " __kbcc_sh[" +
         std::to_string(in_order ? block * items + kHalo + 4 : items * phase_stride(items, block)) + "];\n";
  out += "    const long long __kbcc_b0 = (long long)blockIdx.x * blockDim.x * " + R + ";\n";
  out += direction(w.c) > 0
             ? "    const long long __kbcc_jmin = __kbcc_b0 + __kbcc_lo + __kbcc_c, __kbcc_jmax = __kbcc_b0 + "
               "(long long)blockDim.x * " +
                   R + " - 1 + __kbcc_hi - 1 + __kbcc_c;\n"
             : "    const long long __kbcc_jmin = __kbcc_b0 - (__kbcc_hi - 1) + __kbcc_c, __kbcc_jmax = __kbcc_b0 + "
               "(long long)blockDim.x * " +
                   R + " - 1 - __kbcc_lo + __kbcc_c;\n";
  out += "    if (__syncthreads_and(" + fast_condition(w, cap) + ")) {\n";
  // Tables (the window check leaves the loop at most kHalo + 1 steps, which
  // the kHalo + 4 elements hold): each thread loads the
  // value of step lo + threadIdx.x before staging the window, so that load's
  // latency overlaps the window's; further steps (more than a block) after it.
  for (size_t i = 0; i < w.tables.size(); ++i) {
    const std::string n = std::to_string(i);
    out += "      __shared__ __align__(16) " + w.tables[i].element + " __kbcc_tb" + n + "[" +
           std::to_string(kHalo + 4) + "];\n";
    out += "      " + w.tables[i].element + " __kbcc_tv" + n + " = " + w.tables[i].element +
           "();\n      if (threadIdx.x < __kbcc_hi - __kbcc_lo) { const " + w.loop_type + " __kbcc_tt = (" +
           w.loop_type + ")(__kbcc_lo + threadIdx.x); __kbcc_tv" + n + " = " + w.tables[i].value + "; }\n";
  }
  out += staging_text(k, w, items, block, in_order);
  for (size_t i = 0; i < w.tables.size(); ++i) {
    const std::string tb = "__kbcc_tb" + std::to_string(i);
    out += "      if (threadIdx.x < __kbcc_hi - __kbcc_lo) " + tb + "[threadIdx.x] = __kbcc_tv" + std::to_string(i) +
           ";\n";
    out +=
        "      for (int __kbcc_e = threadIdx.x + blockDim.x; __kbcc_e < __kbcc_hi - __kbcc_lo; __kbcc_e += blockDim.x) "
        "{ const " +
        w.loop_type + " __kbcc_tt = (" + w.loop_type + ")(__kbcc_lo + __kbcc_e); " + tb +
        "[__kbcc_e] = " + w.tables[i].value + "; }\n";
  }
  out += "      __syncthreads();\n";
  out += loop_text(k, w, items, block, true) + "    } else {\n" + loop_text(k, w, items, block, false) + "    }\n  }\n";
  return out;
}

Expected<std::vector<Axis>> window_space(const Input &in) {
  auto w = analyze(*in.ast);
  if (!w) {
    auto cached = stride_cache_space(in);
    if (cached) return cached;
    return not_applicable(w.error().message + "; as block-stride loops: " + cached.error().message);
  }
  std::vector<Axis> axes{{"items", {"4", "2", "8"}}, {"block", {"128", "64"}}};
  if (!w->tables.empty()) axes.push_back({"tables", {"on", "off"}});
  return axes;
}

Expected<Output> window_apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto w = analyze(k);
  if (!w) return stride_cache_space(in) ? stride_cache_apply(in, params) : window_space(in).error();
  long items = int_param(params, "items", 4), block = int_param(params, "block", 128);
  auto tables = params.find("tables");
  if (tables != params.end() && tables->second != "on" && tables->second != "off")
    return not_applicable("tables is not on or off");
  if (tables != params.end() && tables->second == "off") w->tables.clear();
  if (items < 2 || items > 16 || 32 % items != 0) return not_applicable("items is not 2, 4, 8 or 16");
  if (block < 32 || block > 1024 || block % 32 != 0) return not_applicable("block out of range");
  // Everything the rewrite copies must be written outside macros.
  for (const Stmt *s : w->body->body())
    if (!spans(k, s)) return not_applicable("the body is written in a macro");
  size_t open = k.offset(w->body->getLBracLoc()), close = k.offset(w->body->getRBracLoc());
  const Stmt *loop = w->loop.loop;
  size_t lb = statement_begin(k, loop), lx = statement_end(k, loop);
  if (open == std::string::npos || close == std::string::npos || lb == std::string::npos || lx == std::string::npos)
    return not_applicable("the body is written in a macro");
  bool in_macro = false;
  walk(w->body, [&](const Stmt *s) {
    if (isa<DeclRefExpr>(s) || isa<ReturnStmt>(s) || isa<IfStmt>(s) || isa<ArraySubscriptExpr>(s))
      in_macro = in_macro || !spans(k, s);
  });
  for (const VarDecl *v : w->expanded.values)
    in_macro = in_macro || (v->getInit() && !spans(k, v->getInit()));
  if (in_macro) return not_applicable("part of the body is written in a macro");
  // With a wrapper, what follows the loop ends at its block's closing brace.
  size_t inner_close = w->wrapper ? k.offset(w->scope->getRBracLoc()) : close;
  if (inner_close == std::string::npos || (w->wrapper && statement_begin(k, w->wrapper) == std::string::npos))
    return not_applicable("the body is written in a macro");
  Edits e;
  e.replace(open + 1, lb, "\n" + prologue_text(k, *w, items, open + 1, lb));
  e.replace(lb, lx, window_text(k, *w, items, block));
  e.replace(lx, close, epilogue_text(k, *w, items, lx, inner_close));
  auto text = e.apply(k.source());
  if (!text) return text.error();
  Output out;
  out.source = *text;
  out.launch = coarse_mapping(w->space, block, items);
  out.numerics = cache::kNumericsExact;
  out.size_params.assign(w->space.bound_params.begin(), w->space.bound_params.end());
  return out;
}

} // namespace

Transform window_transform() {
  return {"sliding_window",
          cache::kNumericsExact,
          "each thread runs `items` consecutive threads and keeps the window of a read-only array they read in "
          "registers; or reads the elements its block-stride loops share into registers once",
          true,
          window_space,
          window_apply};
}

} // namespace kbcc::transform
