// smem_transpose_staging's row form. In a thread-per-row kernel, a loop
// `for (T c = I; c < N; ++c)` that reads X[row * S + c] moves each thread
// along its own row, so a warp's reads at one step lie S elements apart and
// each moves a sector of its own. When the loop cannot be shared across
// lanes (it carries a scalar that is no accumulation: an online update or a
// recurrence whose order matters), it now runs in chunks of `chunk`
// iterations: before each chunk, the block loads the chunk's elements of
// every row it holds into a shared tile, consecutive threads on consecutive
// elements of one row, and after a barrier each thread runs its iterations
// of the chunk as written, each staged read taking its element from the
// tile. Every thread computes the same values in the same order: the
// results are bit-identical. The kernel runs in blocks of `block` threads
// over the same rows.
//
// Legal when:
//   - the kernel is 1-D in the global-index idiom, without barriers, warp
//     operations or shared memory (index_space), and one of the loops it
//     stages updates a scalar declared outside it other than by an
//     accumulation or a selection (loops of those alone are
//     split_loop_across_warp's; they are staged too when such a loop is);
//   - the loop is a statement of the body, or of a last statement
//     `if (C) { ... }` at any depth, reached by every thread that passes the
//     guards before it: those `if (C) return;` and the enclosing `if (C)`,
//     whose conditions read no memory and call nothing, and no other
//     statement before it returns, breaks or jumps; a thread that fails a
//     guard exits, and an exited thread holds no barrier up;
//   - it is a counted loop whose start and bound are the same for every
//     thread of the block (so its barriers are reached alike), without
//     return, break or goto;
//   - a staged read is X[E] with X a parameter the kernel never writes
//     through (nor through a pointer no parameter roots), evaluated on
//     every iteration (not under an `if`, `?:`, `&&`, `||` or a nested
//     loop), its address moving by one element with the
//     loop variable and not with the row, and written from the loop
//     variable, the row, parameters nothing assigns and locals of one value
//     each, without memory reads or calls: the block can compute it for any
//     of its rows. The tile then holds, for each row that reaches the loop,
//     exactly the elements the loop reads, and nothing writes them.
#include "transform/row_streams.h"

#include "cache/variant.h"
#include "transform/analysis.h"
#include "transform/edits.h"
#include "transform/index_space.h"
#include "transform/uniform.h"

#include "clang/AST/Attr.h"

#include <algorithm>
#include <functional>
#include <set>

namespace kbcc::transform {
using namespace clang;

namespace {

constexpr size_t kMaxStreams = 4;
constexpr long kMaxTileBytes = 40 * 1024;
// The row a thread of the loader stages, in the loader's text.
constexpr const char *kRow = "__kbcc_row";

// One staged array read: every read of the loop at the same address.
struct Stream {
  std::vector<const ArraySubscriptExpr *> reads;
  std::string type;   // the element type
  long bytes = 0;     // its size
  std::string source; // the read as the loader writes it for row kRow
};

struct StagedLoop {
  const Stmt *stmt = nullptr; // the loop, or the attributed statement holding it
  CountedLoop loop;
  std::vector<std::string> conditions; // those a row passes to reach the loop, for row kRow
  std::vector<Stream> streams;
  bool serial = false; // it updates a scalar other than by accumulation or selection: no split shares it
};

struct Plan {
  IndexSpace space;
  std::set<const VarDecl *> rows; // the locals holding the row
  std::vector<StagedLoop> loops;
};

// `e`'s text as the block computes it for row kRow (uniform_text): the row's
// locals and the global index become that row, `keep` (the loop variable)
// and pointer parameters nothing assigns stay, locals of one value are
// written out. `moved` is set when the text depends on the row. Error when
// `e` reads memory, calls a function or names a local of several values.
Expected<std::string> row_text(const KernelAst &k, const Plan &p, const VarDecl *keep, const Expr *e, bool &moved) {
  Subst subst;
  if (keep) subst.vars[keep] = keep->getNameAsString();
  for (const ParmVarDecl *q : k.kernel()->parameters())
    if (q->getType()->isPointerType() && !assigns(k.kernel()->getBody(), q)) subst.vars[q] = q->getNameAsString();
  subst.expr = [&](const Expr *x) -> std::optional<std::string> {
    if (auto g = as_global_index(x)) {
      moved = true;
      return as_index(k.text(g->expr->getSourceRange()), kRow);
    }
    const auto *ref = dyn_cast<DeclRefExpr>(x);
    const auto *v = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!v || !p.rows.count(v)) return std::nullopt;
    moved = true;
    return "((decltype(" + v->getNameAsString() + "))(" + kRow + "))";
  };
  auto text = uniform_text(k, e, subst);
  if (!text)
    return not_applicable("'" + k.text(e->getSourceRange()) +
                          "' reads memory, calls a function or names a local of several values");
  return *text;
}

// The additive terms of address `e` (through casts), with the locals of one
// value among them written out as their terms; the row's locals and `keep`
// stay. `negative` collects the subtracted ones.
void address_terms(const Expr *e, const Plan &p, const VarDecl *keep, std::vector<const Expr *> &positive,
                   std::vector<const Expr *> &negative, bool negated = false, int depth = 0) {
  std::vector<const Expr *> pos, neg;
  signed_terms(e, negated, pos, neg);
  for (auto [terms, out] : {std::pair{&pos, &positive}, std::pair{&neg, &negative}})
    for (const Expr *t : *terms) {
      const VarDecl *v = var_of(t->IgnoreParenCasts());
      const Expr *value = v && v != keep && !p.rows.count(v) && !isa<ParmVarDecl>(v) ? value_of(v) : nullptr;
      if (value && depth < 8 && v->getType()->isIntegerType())
        address_terms(value, p, keep, positive, negative, out == &negative, depth + 1);
      else
        out->push_back(t);
    }
}

// The offset part of pointer `base` when it is a local pointer of one value
// `P + off` (or `off + P`), nullptr otherwise.
const Expr *pointer_offset(const Expr *base) {
  const VarDecl *v = var_of(base->IgnoreParenImpCasts());
  const Expr *value = v && !isa<ParmVarDecl>(v) ? value_of(v) : nullptr;
  const auto *add = value ? dyn_cast<BinaryOperator>(value->IgnoreParenCasts()) : nullptr;
  if (!add || add->getOpcode() != BO_Add) return nullptr;
  return add->getLHS()->getType()->isPointerType() ? add->getRHS() : add->getLHS();
}

// Whether term `t` is `var` itself (through casts), or the global index when
// `var` is null.
bool is_term(const Expr *t, const VarDecl *var) {
  t = t->IgnoreParenCasts();
  if (!var) return as_global_index(t).has_value();
  return var_of(t) == var;
}

// The statement `s` holds under its attributes (`#pragma unroll`).
const Stmt *loop_of(const Stmt *s) {
  if (const auto *attributed = dyn_cast<AttributedStmt>(s)) return attributed->getSubStmt();
  return s;
}

// Why read `a` of loop `cl` cannot be staged, or "" (and `s` filled).
std::string stream_of(const KernelAst &k, const Plan &p, const CountedLoop &cl, const ArraySubscriptExpr *a,
                      const std::set<const ParmVarDecl *> &written, Stream &s) {
  const ParmVarDecl *array = root_parameter(a->getBase());
  if (!array) return "it reads through a pointer not derived from a parameter";
  if (written.count(array)) return "the kernel writes the array it reads";
  if (written.count(nullptr)) return "the kernel writes through a pointer kbcc cannot follow";
  QualType type = a->getType().getUnqualifiedType();
  if (!type->isArithmeticType()) return "the element read is not arithmetic";
  std::vector<const Expr *> positive, negative;
  address_terms(a->getIdx(), p, cl.var, positive, negative);
  if (const Expr *off = pointer_offset(a->getBase())) address_terms(off, p, cl.var, positive, negative);
  size_t along = 0, others = 0;
  for (const Expr *t : positive) {
    if (is_term(t, cl.var))
      ++along;
    else if (refers_to(t, cl.var))
      ++others;
    if (is_term(t, nullptr)) return "consecutive rows read consecutive elements already";
    for (const VarDecl *r : p.rows)
      if (is_term(t, r)) return "consecutive rows read consecutive elements already";
  }
  for (const Expr *t : negative)
    others += refers_to(t, cl.var) ? 1 : 0;
  if (along != 1 || others != 0) return "its address does not move by one element with the loop variable";
  bool moved = false;
  auto base = row_text(k, p, cl.var, a->getBase(), moved);
  if (!base) return base.error().message;
  auto index = row_text(k, p, cl.var, a->getIdx(), moved);
  if (!index) return index.error().message;
  if (!moved) return "every row reads the same elements";
  s.type = type.getAsString();
  s.bytes = k.context().getTypeSizeInChars(type).getQuantity();
  s.source = *base + "[" + *index + "]";
  return {};
}

// The parameters the kernel writes through (stores, atomics, calls that may
// write), with nullptr among them when it writes through a pointer no
// parameter roots, which may be any of them.
std::set<const ParmVarDecl *> written_arrays(const Stmt *body) {
  std::set<const ParmVarDecl *> out;
  walk(body, [&](const Stmt *s) {
    const Expr *lhs = nullptr;
    if (const auto *b = dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp()) lhs = b->getLHS();
    if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->isIncrementDecrementOp()) lhs = u->getSubExpr();
    if (lhs && is_memory(lhs)) {
      const Expr *e = lhs->IgnoreParenImpCasts();
      if (const auto *sub = dyn_cast<ArraySubscriptExpr>(e)) e = sub->getBase();
      if (const auto *u = dyn_cast<UnaryOperator>(e); u && u->getOpcode() == UO_Deref) e = u->getSubExpr();
      out.insert(root_parameter(e));
    }
    if (const auto *call = dyn_cast<CallExpr>(s); call && writes_memory(call))
      for (const Expr *arg : call->arguments())
        walk(arg, [&](const Stmt *x) {
          if (const auto *ref = dyn_cast<DeclRefExpr>(x))
            if (const auto *v = dyn_cast<VarDecl>(ref->getDecl()); v && v->getType()->isPointerType())
              if (const ParmVarDecl *root = root_parameter(ref)) out.insert(root);
        });
  });
  return out;
}

// The streams of loop statement `st` run under `conditions`, or why none.
std::string staged_loop(const KernelAst &k, const Plan &p, const Stmt *st, const std::vector<std::string> &conditions,
                        const std::set<const ParmVarDecl *> &written, StagedLoop &out) {
  const auto *f = dyn_cast<ForStmt>(loop_of(st));
  auto cl = f ? counted_loop(f) : std::nullopt;
  if (!cl) return "not a counted loop";
  if (!cl->var->getType()->isIntegerType()) return "its variable is not an integer";
  if (!block_uniform(cl->init) || !block_uniform(cl->bound)) return "its start or bound differs between rows";
  if (has_return(f->getBody()) || has_break_or_goto(f->getBody())) return "it has return, break or goto";
  out = {st, *cl, conditions, {}, false};
  std::set<const VarDecl *> selected;
  for (const Selection &sel : selections(f, k.context())) {
    selected.insert(sel.best);
    selected.insert(sel.carried.begin(), sel.carried.end());
  }
  out.serial = !accumulations(f, k.context(), selected).has_value();
  std::string why = "it reads no array along its rows on every iteration";
  for_each_read(f->getBody(), [&](const ArraySubscriptExpr *a, const Path &path, bool plain) {
    if (!plain || !path.empty()) return true;
    for (Stream &s : out.streams)
      if (same_expr(s.reads.front(), a, k.context())) return true;
    Stream s;
    std::string no = stream_of(k, p, *cl, a, written, s);
    if (!no.empty()) {
      why = "its read '" + k.text(a->getSourceRange()) + "': " + no;
      return true;
    }
    s.reads.push_back(a);
    out.streams.push_back(s);
    return true;
  });
  if (out.streams.empty()) return why;
  if (out.streams.size() > kMaxStreams) return "it reads more than four arrays along its rows";
  // Every read of a staged address takes its element from the tile, wherever it is.
  walk(f->getBody(), [&](const Stmt *x) {
    const auto *a = dyn_cast<ArraySubscriptExpr>(x);
    if (!a) return;
    for (Stream &s : out.streams)
      if (a != s.reads.front() && same_expr(s.reads.front(), a, k.context())) s.reads.push_back(a);
  });
  return {};
}

Expected<Plan> analyze(const Input &in) {
  const KernelAst &k = *in.ast;
  auto space = index_space(k, /*allow_2d=*/false, /*allow_atomics=*/true);
  if (!space) return space.error();
  Plan p;
  p.space = *space;
  for (const VarDecl *v : index_variables(space->body, 0))
    p.rows.insert(v);
  std::set<const ParmVarDecl *> written = written_arrays(space->body);
  std::vector<std::string> conditions;
  std::string why = "no loop reads along its rows";
  bool ended = false;
  for (const CompoundStmt *scope = space->body; scope && !ended;) {
    const IfStmt *block = work_block(scope);
    for (const Stmt *s : scope->body()) {
      if (s == block) break;
      if (const auto *guard = dyn_cast<IfStmt>(s); guard && !guard->getElse() && !guard->hasInitStorage() &&
                                                   !guard->hasVarStorage() && only_returns(guard->getThen())) {
        bool moved = false;
        auto c = row_text(k, p, nullptr, guard->getCond(), moved);
        if (!c) {
          why = "a guard before the loops: " + c.error().message;
          ended = true;
          break;
        }
        conditions.push_back("!" + *c);
        continue;
      }
      StagedLoop loop;
      std::string no = staged_loop(k, p, s, conditions, written, loop);
      if (no.empty())
        p.loops.push_back(loop);
      else if (const auto *f = dyn_cast<ForStmt>(loop_of(s)))
        why = "the loop '" + k.text({f->getBeginLoc(), f->getRParenLoc()}) + "': " + no;
      if (has_return(s) || has_break_or_goto(s)) {
        ended = true; // which rows reach the later loops depends on more than their guards
        break;
      }
    }
    if (ended || !block) break;
    bool moved = false;
    auto c = row_text(k, p, nullptr, block->getCond(), moved);
    if (!c) {
      why = "the condition around the loops: " + c.error().message;
      break;
    }
    conditions.push_back(*c);
    scope = dyn_cast<CompoundStmt>(block->getThen());
  }
  if (p.loops.empty()) return not_applicable(why);
  if (std::none_of(p.loops.begin(), p.loops.end(), [](const StagedLoop &l) { return l.serial; }))
    return not_applicable("each loop along the rows only accumulates or stores: split_loop_across_warp shares it "
                          "across lanes");
  return p;
}

// How many times the staged reads of `l` name `v`.
int staged_references(const StagedLoop &l, const VarDecl *v) {
  int n = 0;
  for (const Stream &s : l.streams)
    for (const ArraySubscriptExpr *a : s.reads)
      n += references(a, v);
  return n;
}

// The locals declared before loop `l` that only its staged reads name: the
// rewrite leaves them unused.
std::set<const VarDecl *> unused_after(const KernelAst &k, const StagedLoop &l) {
  std::set<const VarDecl *> out;
  for (const Stream &s : l.streams)
    walk(s.reads.front(), [&](const Stmt *x) {
      const auto *ref = dyn_cast<DeclRefExpr>(x);
      const auto *v = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      if (v && v != l.loop.var && v->hasLocalStorage() && !isa<ParmVarDecl>(v) &&
          references(k.kernel()->getBody(), v) == staged_references(l, v))
        out.insert(v);
    });
  return out;
}

// The loop of `l` in chunks of `chunk` iterations, each staged for the
// block's `block` rows before its threads run it; the tiles' names start
// at `__kbcc_rs<first>`.
Expected<std::string> chunked_loop(const KernelAst &k, const StagedLoop &l, long block, long chunk, size_t first) {
  const CountedLoop &cl = l.loop;
  std::string type = cl.var->getType().getUnqualifiedType().getAsString(), var = cl.var->getNameAsString();
  std::string init = k.text(cl.init->getSourceRange()), bound = k.text(cl.bound->getSourceRange());
  const Stmt *body = cl.loop->getBody();
  size_t bb = statement_begin(k, body), bx = statement_end(k, body);
  if (init.empty() || bound.empty() || bb == std::string::npos || bx == std::string::npos)
    return not_applicable("the loop is written in a macro");
  Edits e;
  std::string loads;
  for (size_t i = 0; i < l.streams.size(); ++i) {
    std::string tile = "__kbcc_rs" + std::to_string(first + i);
    loads += "          " + tile + "[__kbcc_t][__kbcc_q] = " + l.streams[i].source + ";\n";
    for (const ArraySubscriptExpr *a : l.streams[i].reads) {
      size_t ab = 0, ax = 0;
      if (!k.span(a->getSourceRange(), ab, ax) || ab < bb || ax > bx)
        return not_applicable("a read is written in a macro");
      e.replace(ab - bb, ax - bb, tile + "[threadIdx.x][__kbcc_q]");
    }
  }
  auto text = e.apply(k.source().substr(bb, bx - bb));
  if (!text) return text.error();
  std::string iteration = references(body, cl.var) > staged_references(l, cl.var)
                              ? type + " " + var + " = __kbcc_j0 + __kbcc_q;\n        "
                              : "";
  std::string b = std::to_string(block), c = std::to_string(chunk);
  std::string guard = "__kbcc_q < __kbcc_m";
  for (const std::string &cond : l.conditions)
    guard += " && " + cond;
  std::string left = "(" + bound + ") - __kbcc_j0" + (cl.inclusive ? " + 1" : "");
  // The live threads, ranked: those that failed a guard have exited.
  std::string live = "__kbcc_live" + std::to_string(first), warps = std::to_string(block / 32);
  std::string ranks =
      "    __shared__ unsigned " + live + "[" + warps + "];\n    for (int __kbcc_w = 0; __kbcc_w < " + warps +
      "; ++__kbcc_w) " + live + "[__kbcc_w] = 0;\n    __syncthreads();\n    atomicOr(&" + live +
      "[threadIdx.x / 32], 1u << (threadIdx.x % 32));\n    __syncthreads();\n    int __kbcc_rank = __popc(" + live +
      "[threadIdx.x / 32] & ((1u << (threadIdx.x % 32)) - 1)), __kbcc_lives = 0;\n" +
      "    for (int __kbcc_w = 0; __kbcc_w < " + warps + "; ++__kbcc_w) {\n      const int __kbcc_n = __popc(" + live +
      "[__kbcc_w]);\n      __kbcc_lives += __kbcc_n;\n      if (__kbcc_w < threadIdx.x / 32) __kbcc_rank += "
      "__kbcc_n;\n    }\n";
  // One element of the tiles; a full block loads them a block apart, unrolled,
  // so that every thread has all its loads in flight at once.
  std::string element = "          const int __kbcc_t = __kbcc_e / " + c + ", __kbcc_q = __kbcc_e % " + c +
                        ";\n          const unsigned " + kRow + " = blockIdx.x * " + b +
                        " + __kbcc_t;\n          if (" + guard + ") {\n            const " + type + " " + var +
                        " = __kbcc_j0 + __kbcc_q;\n  " + loads + "          }\n";
  std::string staging = "      if (__kbcc_lives == " + b +
                        ") {\n        #pragma unroll\n        for (int __kbcc_k = 0; "
                        "__kbcc_k < " +
                        c + "; ++__kbcc_k) {\n          const int __kbcc_e = threadIdx.x + __kbcc_k * " + b + ";\n" +
                        element + "        }\n      } else {\n        for (int __kbcc_e = __kbcc_rank; __kbcc_e < " +
                        b + " * " + c + "; __kbcc_e += __kbcc_lives) {\n" + element + "        }\n      }\n";
  return "{\n" + ranks + "    " + type + " __kbcc_j0 = (" + init + ");\n    while (__kbcc_j0 " +
         (cl.inclusive ? "<=" : "<") + " (" + bound + ")) {\n      const auto __kbcc_left = " + left +
         ";\n      const int __kbcc_m = __kbcc_left < " + c + " ? (int)__kbcc_left : " + c +
         ";\n      __syncthreads();\n" + staging +
         "      __syncthreads();\n      for (int __kbcc_q = 0; __kbcc_q < __kbcc_m; ++__kbcc_q) "
         "{\n        " +
         iteration + *text + "\n      }\n      if (__kbcc_left <= " + c + ") break;\n      __kbcc_j0 += " + c +
         ";\n    }\n  }";
}

} // namespace

Expected<std::vector<Axis>> row_streams_space(const Input &in) {
  auto p = analyze(in);
  if (!p) return p.error();
  return std::vector<Axis>{{"block", {"128", "64", "256"}}, {"chunk", {"32", "64", "16"}}};
}

Expected<Output> row_streams_apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto p = analyze(in);
  if (!p) return p.error();
  long block = int_param(params, "block", 128), chunk = int_param(params, "chunk", 32);
  if (block < 32 || block > 1024 || block % 32) return not_applicable("block is not a multiple of 32 up to 1024");
  if (chunk < 1 || chunk > 128) return not_applicable("chunk is not between 1 and 128");
  long bytes = 0;
  std::string tiles;
  size_t count = 0;
  for (const StagedLoop &l : p->loops)
    for (const Stream &s : l.streams) {
      bytes += block * (chunk + 1) * s.bytes;
      tiles += "\n  __shared__ " + s.type + " __kbcc_rs" + std::to_string(count++) + "[" + std::to_string(block) +
               "][" + std::to_string(chunk) + " + 1];";
    }
  if (bytes > kMaxTileBytes) return not_applicable("the tiles need more than 40 KiB of shared memory");
  Edits e;
  size_t open = k.offset(p->space.body->getLBracLoc());
  if (open == std::string::npos) return not_applicable("the body is written in a macro");
  e.insert(open + 1, tiles);
  size_t first = 0;
  std::set<size_t> unused; // where `[[maybe_unused]]` went
  for (const StagedLoop &l : p->loops) {
    size_t lb = statement_begin(k, l.stmt), lx = statement_end(k, l.stmt);
    if (lb == std::string::npos || lx == std::string::npos) return not_applicable("the loop is written in a macro");
    auto text = chunked_loop(k, l, block, chunk, first);
    if (!text) return text.error();
    e.replace(lb, lx, *text);
    first += l.streams.size();
    for (const VarDecl *v : unused_after(k, l))
      if (size_t at = k.offset(v->getBeginLoc()); at != std::string::npos && unused.insert(at).second)
        e.insert(at, "[[maybe_unused]] ");
  }
  auto text = e.apply(k.source());
  if (!text) return text.error();
  Output out;
  out.source = with_launch_bounds(*text, block);
  out.launch = coarse_mapping(p->space, block, 1);
  out.numerics = cache::kNumericsExact;
  out.size_params.assign(p->space.bound_params.begin(), p->space.bound_params.end());
  return out;
}

} // namespace kbcc::transform
