// sliding_window's cached form. A block-stride loop
// `for (T v = threadIdx.x; v < B; v += blockDim.x)` gives each thread the
// elements v ≡ threadIdx.x (mod blockDim.x) of [0, B); a kernel that runs
// several such loops over one B and reads base[off + v] in more than one of
// them re-reads each of its elements from the cache, one loop after the
// other. Here each thread reads its elements of such a stream once, into
// `steps` registers, before the first loop that reads it; each loop that
// reads a stream runs as `steps` unrolled steps (v = threadIdx.x +
// q * blockDim.x, while v < B) that read the registers. The launch is kept,
// under the preconditions 0 <= B <= steps * block.x. Each thread runs the same
// operations, in the same order, on the same values: the results are
// bit-identical.
//
// Legal when:
//   - the loops are statements of the kernel's body (or of the work block
//     `if (C) { ... }` that ends it, at any depth), so that a thread runs
//     each of them whole; each declares its integer variable, starting at
//     threadIdx.x (or a local holding it), checks `v < B` with B the same
//     for every loop, every thread of the block and the whole kernel (block
//     uniform) and written in the launch language, steps by blockDim.x, and
//     has a body that does not assign v, has no barrier, warp operation,
//     return, break or goto;
//   - a stream's reads are base[off + v] with base and off the same
//     expression, block uniform and free of memory reads, in each loop, and
//     one of them runs on every step of its loop (so the elements read
//     ahead are elements the kernel reads);
//   - from the first loop that reads a cached stream to the last one,
//     nothing stores to memory other than __shared__ variables, calls an
//     atomic or a function that may write; in the last loop, the stores
//     are statements of the body `Q[off' + v] = E` (or op=), each thread's
//     own elements, and no cached read follows the first of them. A value
//     read from the registers is then the value the loop would have read.
#include "transform/stride_cache.h"

#include "cache/variant.h"
#include "transform/analysis.h"
#include "transform/captured.h"
#include "transform/edits.h"
#include "transform/uniform.h"

#include "clang/AST/Attr.h"

#include <algorithm>

namespace kbcc::transform {
using namespace clang;

namespace {

constexpr long kMaxSteps = 16;

struct StrideLoop {
  const Stmt *stmt = nullptr; // the loop, or the attributed statement holding it
  const ForStmt *loop = nullptr;
  const VarDecl *var = nullptr;
  const Expr *bound = nullptr;
};

// A read base[off + v] of a stride loop's variable v.
struct Read {
  const ArraySubscriptExpr *expr = nullptr;
  size_t loop = 0; // index in Cache::loops
  bool every_step = false;
};

struct Stream {
  std::vector<Read> reads;
  std::set<size_t> loops; // the loops that read it
};

struct Cache {
  std::vector<StrideLoop> loops; // the block-stride loops over the first one's bound, in order
  std::vector<Stream> streams;   // those read by two loops or more
  std::string bound;             // the bound in the launch language
};

// Whether `e` is threadIdx.x, or a local whose one value is.
bool is_thread_x(const Expr *e) {
  if (auto b = as_builtin(e)) return b->var == Builtin::ThreadIdx && b->dim == 0;
  const VarDecl *v = var_of(e->IgnoreParenCasts());
  const Expr *value = v ? value_of(v) : nullptr;
  return value && value != e && is_thread_x(value);
}

bool is_block_dim_x(const Expr *e) {
  auto b = as_builtin(e);
  return b && b->var == Builtin::BlockDim && b->dim == 0;
}

// `s` as a block-stride loop, when it is one.
std::optional<StrideLoop> stride_loop(const Stmt *s) {
  const Stmt *inner = s;
  if (const auto *a = dyn_cast<AttributedStmt>(s)) inner = a->getSubStmt();
  const auto *f = dyn_cast<ForStmt>(inner);
  const auto *d = f ? dyn_cast_or_null<DeclStmt>(f->getInit()) : nullptr;
  if (!d || !d->isSingleDecl()) return std::nullopt;
  const auto *v = dyn_cast<VarDecl>(d->getSingleDecl());
  if (!v || !v->getType()->isIntegerType() || !v->getInit() || !is_thread_x(v->getInit())) return std::nullopt;
  const Expr *bound = f->getCond() ? less_than_bound(f->getCond(), v) : nullptr;
  const auto *inc = dyn_cast_or_null<CompoundAssignOperator>(f->getInc());
  if (!bound || !inc || inc->getOpcode() != BO_AddAssign || !names(inc->getLHS(), v) || !is_block_dim_x(inc->getRHS()))
    return std::nullopt;
  return StrideLoop{s, f, v, bound};
}

// Why a thread may not run `l` as unrolled steps ("" when it may).
std::string loop_refusal(const StrideLoop &l) {
  const Stmt *body = l.loop->getBody();
  Effects e = effects_in(body);
  if (e.barrier || e.warp_ops) return "a block-stride loop synchronizes threads";
  if (has_return(body) || has_break_or_goto(body)) return "a block-stride loop returns or jumps";
  if (assigns(body, l.var)) return "a block-stride loop assigns its variable";
  return "";
}

// The statements every thread that gets there runs in order: the body's,
// the work block that ends it standing for its statements, at any depth.
std::vector<const Stmt *> statements(const CompoundStmt *body) {
  std::vector<const Stmt *> out;
  for (const CompoundStmt *c = body; c;) {
    const IfStmt *w = work_block(c);
    for (const Stmt *s : c->body())
      if (s != w) out.push_back(s);
    c = w ? dyn_cast<CompoundStmt>(w->getThen()) : nullptr;
  }
  return out;
}

// The index terms of `sub` but its one plain positive term naming `v`, when
// it has that term and no other term reads v and the rest is block uniform.
std::optional<std::vector<const Expr *>> offset_terms(const ArraySubscriptExpr *sub, const VarDecl *v) {
  std::vector<const Expr *> pos, neg;
  signed_terms(sub->getIdx(), false, pos, neg);
  std::vector<const Expr *> rest;
  int own = 0;
  for (const Expr *t : pos) {
    if (names(t->IgnoreParenCasts(), v)) {
      ++own;
      continue;
    }
    rest.push_back(t);
  }
  if (own != 1) return std::nullopt;
  rest.insert(rest.end(), neg.begin(), neg.end());
  for (const Expr *t : rest)
    if (refers_to(t, v) || !block_uniform(t) || reads_memory(t)) return std::nullopt;
  return rest;
}

// Whether two reads address the same element for the same value of their loops' variables.
bool same_stream(const ArraySubscriptExpr *a, const VarDecl *va, const ArraySubscriptExpr *b, const VarDecl *vb,
                 const ASTContext &ctx) {
  if (!same_expr(a->getBase(), b->getBase(), ctx)) return false;
  auto ta = offset_terms(a, va), tb = offset_terms(b, vb);
  if (!ta || !tb || ta->size() != tb->size()) return false;
  for (size_t i = 0; i < ta->size(); ++i)
    if (!same_expr((*ta)[i], (*tb)[i], ctx)) return false;
  return true;
}

// Whether lvalue `lhs` is an element of a __shared__ variable.
bool in_shared(const Expr *lhs) {
  const Expr *e = lhs->IgnoreParenImpCasts();
  while (const auto *sub = dyn_cast<ArraySubscriptExpr>(e))
    e = sub->getBase()->IgnoreParenImpCasts();
  const VarDecl *v = var_of(e);
  return v && v->hasAttr<CUDASharedAttr>();
}

// The stores `s` makes to memory other than __shared__ variables, and
// whether it calls a function that may write (an atomic, a user function).
struct Stores {
  std::vector<const Expr *> lvalues;
  bool calls = false;
};
Stores global_stores(const Stmt *s) {
  Stores out;
  walk(s, [&](const Stmt *x) {
    const Expr *lhs = nullptr;
    if (const auto *b = dyn_cast<BinaryOperator>(x); b && b->isAssignmentOp()) lhs = b->getLHS();
    if (const auto *u = dyn_cast<UnaryOperator>(x); u && u->isIncrementDecrementOp()) lhs = u->getSubExpr();
    if (lhs && is_memory(lhs) && !in_shared(lhs)) out.lvalues.push_back(lhs);
    if (isa<CallExpr>(x) && writes_memory(x)) out.calls = true;
  });
  return out;
}

// Whether `e` is a part of `s`.
bool contains(const Stmt *s, const Expr *e) {
  bool found = false;
  walk(s, [&](const Stmt *x) { found = found || x == e; });
  return found;
}

// Why the last loop's stores may change what its cached reads see ("" when
// they cannot): see the file comment.
std::string last_loop_refusal(const StrideLoop &l, const std::vector<const ArraySubscriptExpr *> &cached) {
  Stores st = global_stores(l.loop->getBody());
  if (st.calls) return "the last block-stride loop calls a function that may write memory";
  if (st.lvalues.empty()) return "";
  const auto *body = dyn_cast<CompoundStmt>(l.loop->getBody());
  std::vector<const Stmt *> stmts = body ? std::vector<const Stmt *>(body->body_begin(), body->body_end())
                                         : std::vector<const Stmt *>{l.loop->getBody()};
  size_t first = stmts.size();
  for (size_t i = 0; i < stmts.size(); ++i) {
    Stores here = global_stores(stmts[i]);
    if (here.lvalues.empty()) continue;
    const auto *b = dyn_cast<BinaryOperator>(stmts[i]);
    const auto *sub =
        b && b->isAssignmentOp() ? dyn_cast<ArraySubscriptExpr>(b->getLHS()->IgnoreParenImpCasts()) : nullptr;
    if (here.lvalues.size() != 1 || !sub || !offset_terms(sub, l.var))
      return "a store of the last block-stride loop is not `Q[off + v] = E;` of its body";
    first = std::min(first, i);
  }
  for (size_t i = first + 1; i < stmts.size(); ++i)
    for (const ArraySubscriptExpr *r : cached)
      if (contains(stmts[i], r)) return "the last block-stride loop reads a cached element after a store";
  return "";
}

Expected<Cache> analyze(const KernelAst &k) {
  const auto *body = dyn_cast_or_null<CompoundStmt>(k.kernel()->getBody());
  if (!body) return not_applicable("the kernel has no body");
  std::vector<const Stmt *> stmts = statements(body);
  Cache c;
  std::vector<size_t> at; // statement index of each loop
  for (size_t i = 0; i < stmts.size(); ++i) {
    auto l = stride_loop(stmts[i]);
    if (!l || !loop_refusal(*l).empty()) continue;
    if (!c.loops.empty() && !same_expr(l->bound, c.loops.front().bound, k.context())) continue;
    c.loops.push_back(*l);
    at.push_back(i);
  }
  if (c.loops.size() < 2)
    return not_applicable("no two block-stride loops (v = threadIdx.x; v < B; v += blockDim.x) run over one range");
  const Expr *bound = c.loops.front().bound;
  auto text = as_mapping_expr(bound);
  if (!block_uniform(bound) || !text)
    return not_applicable("the block-stride loops' bound is not built from parameters");
  c.bound = *text;
  // The streams: reads of the same element in two loops or more.
  for (size_t li = 0; li < c.loops.size(); ++li) {
    const StrideLoop &l = c.loops[li];
    for_each_read(l.loop->getBody(), [&](const ArraySubscriptExpr *sub, const Path &path, bool plain) {
      if (!offset_terms(sub, l.var) || !block_uniform(sub->getBase()) || reads_memory(sub->getBase()) ||
          !sub->getType()->isScalarType())
        return false;
      Read r{sub, li, plain && path.empty()};
      for (Stream &s : c.streams) {
        const Read &o = s.reads.front();
        if (same_stream(sub, l.var, o.expr, c.loops[o.loop].var, k.context())) {
          s.reads.push_back(r);
          s.loops.insert(li);
          return true;
        }
      }
      c.streams.push_back(Stream{{r}, {li}});
      return true;
    });
  }
  c.streams.erase(std::remove_if(c.streams.begin(), c.streams.end(),
                                 [](const Stream &s) {
                                   bool every = std::any_of(s.reads.begin(), s.reads.end(),
                                                            [](const Read &r) { return r.every_step; });
                                   return s.loops.size() < 2 || !every;
                                 }),
                  c.streams.end());
  if (c.streams.empty())
    return not_applicable("no element is read by two block-stride loops over one range, on every step of one");
  size_t first = c.loops.size(), last = 0;
  std::vector<const ArraySubscriptExpr *> cached;
  for (const Stream &s : c.streams) {
    first = std::min(first, *s.loops.begin());
    last = std::max(last, *s.loops.rbegin());
    for (const Read &r : s.reads)
      cached.push_back(r.expr);
  }
  for (size_t i = at[first]; i < at[last]; ++i) {
    Stores st = global_stores(stmts[i]);
    if (!st.lvalues.empty() || st.calls)
      return not_applicable("the kernel writes memory between the block-stride loops that read an element");
  }
  if (std::string why = last_loop_refusal(c.loops[last], cached); !why.empty()) return not_applicable(why);
  // Only the loops that read a cached stream are rewritten.
  std::vector<StrideLoop> kept;
  std::vector<size_t> index(c.loops.size());
  for (size_t li = 0; li < c.loops.size(); ++li) {
    bool reads = std::any_of(c.streams.begin(), c.streams.end(), [&](const Stream &s) { return s.loops.count(li); });
    index[li] = kept.size();
    if (reads) kept.push_back(c.loops[li]);
  }
  for (Stream &s : c.streams) {
    std::set<size_t> loops;
    for (Read &r : s.reads)
      loops.insert(r.loop = index[r.loop]);
    s.loops = loops;
  }
  c.loops = kept;
  return c;
}

// The steps a thread runs on each capture with a known bound and block (ceil(B / block.x)).
std::vector<long> captured_steps(const Cache &c, const Input &in) {
  std::vector<long> out;
  auto bounds = captured_values(c.loops.front().bound, in);
  for (size_t i = 0; i < bounds.size() && i < in.launches.size(); ++i)
    if (bounds[i] && in.launches[i].block[0] > 0)
      out.push_back(std::max<long>(0, (*bounds[i] + in.launches[i].block[0] - 1) / in.launches[i].block[0]));
  return out;
}

// Loop header of a thread's steps: `v` at step __kbcc_q, the body run while v < B.
std::string steps_head(const KernelAst &k, const StrideLoop &l, long steps) {
  std::string v = l.var->getName().str(), type = type_text(l.var->getType(), k.context());
  return "#pragma unroll\n  for (int __kbcc_q = 0; __kbcc_q < " + std::to_string(steps) + "; ++__kbcc_q) {\n    " +
         type + " " + v + " = (" + type + ")(threadIdx.x + __kbcc_q * blockDim.x);\n    if (" + v + " < (" +
         k.text(l.bound->getSourceRange()) + ")) ";
}

} // namespace

Expected<std::vector<Axis>> stride_cache_space(const Input &in) {
  auto c = analyze(*in.ast);
  if (!c) return c.error();
  std::vector<long> steps = captured_steps(*c, in);
  if (steps.empty()) return std::vector<Axis>{{"steps", {"4", "8", "2", "16"}}};
  long most = *std::max_element(steps.begin(), steps.end());
  if (most > kMaxSteps)
    return not_applicable("a thread runs " + std::to_string(most) +
                          " steps of the block-stride loops on a captured launch; at most " +
                          std::to_string(kMaxSteps) + " are kept in registers");
  long p = 2;
  while (p < most)
    p *= 2;
  return std::vector<Axis>{{"steps", {std::to_string(p)}}};
}

Expected<Output> stride_cache_apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto c = analyze(k);
  if (!c) return c.error();
  long steps = int_param(params, "steps", 4);
  if (steps < 1 || steps > kMaxSteps) return not_applicable("steps is not between 1 and 16");
  const std::string &src = k.source();
  Edits e;
  for (size_t li = 0; li < c->loops.size(); ++li) {
    const StrideLoop &l = c->loops[li];
    size_t lb = statement_begin(k, l.stmt), lx = statement_end(k, l.stmt), bb = 0, bx = 0;
    const Stmt *body = l.loop->getBody();
    if (lb == std::string::npos || lx == std::string::npos || !k.span(body->getSourceRange(), bb, bx) ||
        k.text(l.bound->getSourceRange()).empty())
      return not_applicable("a block-stride loop is written in a macro");
    bx = isa<CompoundStmt>(body) ? bx : past_semicolon(src, bx);
    Edits inner;
    std::string loads;
    for (size_t s = 0; s < c->streams.size(); ++s) {
      const Stream &st = c->streams[s];
      std::string reg = "__kbcc_s" + std::to_string(s);
      for (const Read &r : st.reads) {
        if (r.loop != li) continue;
        size_t rb = 0, rx = 0;
        if (!k.span(r.expr->getSourceRange(), rb, rx) || rb < bb || rx > bx)
          return not_applicable("a cached read is written in a macro");
        inner.replace(rb - bb, rx - bb, reg + "[__kbcc_q]");
      }
      if (*st.loops.begin() != li) continue;
      const Read &first = *std::find_if(st.reads.begin(), st.reads.end(), [&](const Read &r) { return r.loop == li; });
      std::string type = type_text(first.expr->getType().getUnqualifiedType(), k.context());
      loads += type + " " + reg + "[" + std::to_string(steps) + "];\n  " + steps_head(k, l, steps) + reg +
               "[__kbcc_q] = " + k.text(first.expr->getSourceRange()) + ";\n  }\n  ";
    }
    auto text = inner.apply(src.substr(bb, bx - bb));
    if (!text) return text.error();
    std::string run = isa<CompoundStmt>(body) ? *text : "{\n      " + *text + "\n    }";
    e.replace(lb, lx, loads + steps_head(k, l, steps) + run + "\n  }");
  }
  auto text = e.apply(src);
  if (!text) return text.error();
  Output out;
  out.source = *text;
  launch::LaunchMapping m;
  // An unsigned loop compares a negative bound as a large one.
  m.preconditions.push_back(c->bound + " >= 0");
  m.preconditions.push_back(c->bound + " <= " + std::to_string(steps) + " * block.x");
  out.launch = m;
  out.numerics = cache::kNumericsExact;
  auto sizes = integer_params(c->loops.front().bound);
  out.size_params.assign(sizes.begin(), sizes.end());
  return out;
}

} // namespace kbcc::transform
