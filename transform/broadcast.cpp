// smem_tiling, broadcast form: every thread of a global-index kernel runs one
// counted loop over the same range and, at each step t, reads the same
// elements P[f(t)] of read-only arrays (all-pairs interactions reading x[j],
// a filter w[t]); each such element is loaded once per thread. Here the
// threads of a block load `tile` steps' elements into shared memory together,
// synchronize, run those steps reading them there, and synchronize again
// before the next tile.
//
// Legal when, on top of index_space (1-D or 2-D; no barriers, warp
// operations, shared memory, atomics or unseen calls):
//   - the loop is a counted loop (t from lo, step 1, to hi) at the top level
//     of the body or of the block of the body's last statement `if (C) {...}`,
//     with lo and hi the same for every thread (parameters, literals, uniform
//     locals), so every thread that runs it runs the same steps;
//   - its body stores nothing to memory and has no return, break or goto;
//   - a staged read P[f(t)] has P a pointer parameter to an arithmetic type,
//     never assigned and used only in element reads, f built from t and
//     uniform values, and runs at every step: not in the branches of an
//     `if` (its condition runs), a loop, a switch, a conditional operator or
//     the right of && and ||, and after no `continue` (for_each_read's plain
//     reads with an empty path). A thread that runs the loop then reads
//     every element a tile stages, so the staging loads nothing the
//     original would not. Reads of a staged value elsewhere in the body (in
//     a branch, say) are served from the tile too.
// Threads that do not run the loop (they returned, or C failed) reach no
// barrier and leave the kernel, which releases the barriers for the others
// (PTX: a barrier waits for the CTA's non-exited threads). A block runs the
// tiles only when every one of its threads arrives at the loop
// (__syncthreads_count); the others, and blocks with fewer threads, run the
// loop as written. Each thread's steps keep their order and read the same
// values: results are bit-identical.
#include "transform/broadcast.h"

#include "cache/variant.h"
#include "transform/analysis.h"
#include "transform/captured.h"
#include "transform/edits.h"
#include "transform/index_space.h"
#include "transform/uniform.h"

namespace kbcc::transform {
using namespace clang;

namespace {

// One staged value: the reads of P[f(t)] with the same text.
struct Staged {
  std::vector<const ArraySubscriptExpr *> reads;
  std::string value;   // P[f(t)], t written __kbcc_tt
  std::string element; // P's element type
};

struct Broadcast {
  CountedLoop loop;
  std::string lo, hi; // the loop's first and past-the-end t, as uniform text
  std::vector<Staged> staged;
};

// The reads of `loop`'s body to stage (see the file comment); at most eight
// distinct values. A staged value also serves its reads that do not run at
// every step.
std::vector<Staged> staged_reads(const KernelAst &k, const CountedLoop &loop) {
  struct Candidate {
    const ArraySubscriptExpr *read;
    std::string value, element;
    bool every_step; // plain, under no condition
  };
  std::vector<Candidate> found;
  const Stmt *kernel_body = k.kernel()->getBody();
  for_each_read(loop.loop->getBody(), [&](const ArraySubscriptExpr *sub, const Path &path, bool plain) {
    const auto *p = dyn_cast_or_null<ParmVarDecl>(var_of(sub->getBase()));
    if (!p || !p->getType()->isPointerType() || assigns(kernel_body, p) || !only_read(k, p)) return false;
    QualType element = p->getType()->getPointeeType();
    if (!element->isArithmeticType() || !refers_to(sub->getIdx(), loop.var)) return false;
    auto index = uniform_text(k, sub->getIdx(), Subst{{{loop.var, "__kbcc_tt"}}, nullptr});
    if (!index) return false;
    found.push_back({sub, p->getName().str() + "[" + *index + "]", type_text(element.getUnqualifiedType(), k.context()),
                     plain && path.empty()});
    return true;
  });
  std::vector<Staged> out;
  auto staged = [&](const std::string &value) {
    return std::find_if(out.begin(), out.end(), [&](const Staged &s) { return s.value == value; });
  };
  for (const Candidate &c : found)
    if (c.every_step && staged(c.value) == out.end() && out.size() < 8) out.push_back({{}, c.value, c.element});
  for (const Candidate &c : found)
    if (auto s = staged(c.value); s != out.end()) s->reads.push_back(c.read);
  return out;
}

// The first loop at the top level of `scope` that qualifies; `reason` says
// why the last one tried does not.
std::optional<Broadcast> search(const KernelAst &k, const CompoundStmt *scope, std::string &reason) {
  for (const Stmt *st : scope->body()) {
    const auto *f = dyn_cast<ForStmt>(st);
    if (!f) continue;
    auto loop = counted_loop(f);
    if (!loop) {
      reason = "the loop is not a counted loop (t from a start, step 1, to a bound)";
      continue;
    }
    auto lo = uniform_text(k, loop->init, {}), hi = uniform_text(k, loop->bound, {});
    if (!lo || !hi) {
      reason = "the loop's bounds differ between threads";
      continue;
    }
    const Stmt *body = loop->loop->getBody();
    if (writes_memory(body)) {
      reason = "the loop body stores to memory";
      continue;
    }
    if (has_return(body) || has_break_or_goto(body)) {
      reason = "the loop body has return, break or goto";
      continue;
    }
    Broadcast b{*loop, *lo, loop->inclusive ? "(" + *hi + " + 1)" : *hi, staged_reads(k, *loop)};
    if (b.staged.empty()) {
      reason = "no step reads an element of a read-only array at an index built from the loop variable and "
               "values the same for every thread";
      continue;
    }
    return b;
  }
  return std::nullopt;
}

Expected<Broadcast> analyze(const KernelAst &k) {
  auto s = index_space(k, /*allow_2d=*/true, /*allow_atomics=*/false);
  if (!s) return s.error();
  std::string reason = "the kernel has no top-level loop";
  if (auto b = search(k, s->body, reason)) return *b;
  if (const IfStmt *wrapper = work_block(s->body))
    if (auto b = search(k, cast<CompoundStmt>(wrapper->getThen()), reason)) return *b;
  return not_applicable(reason);
}

// The tiled loop for `b` with `tile` steps per tile; `body` is the loop
// body's text with the staged reads replaced, `original` the loop as written.
std::string tiled_text(const KernelAst &k, const Broadcast &b, long tile, const std::string &body,
                       const std::string &original) {
  const std::string T = std::to_string(tile), t = b.loop.var->getName().str();
  const std::string lt = type_text(b.loop.var->getType().getUnqualifiedType(), k.context());
  std::string out = "{\n  if (__syncthreads_count(1) == (int)(blockDim.x * blockDim.y * blockDim.z)) {\n";
  for (size_t i = 0; i < b.staged.size(); ++i)
    out += "    __shared__ " + b.staged[i].element + " __kbcc_s" + std::to_string(i) + "[" + T + "];\n";
  out += "    for (" + lt + " __kbcc_t0 = " + b.lo + "; __kbcc_t0 < " + b.hi + "; __kbcc_t0 += " + T + ") {\n";
  out += "      for (unsigned __kbcc_e = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); "
         "__kbcc_e < " +
         T + "u; __kbcc_e += blockDim.x * blockDim.y * blockDim.z) {\n";
  out +=
      "        const " + lt + " __kbcc_tt = __kbcc_t0 + (" + lt + ")__kbcc_e;\n        if (__kbcc_tt < " + b.hi + ") {";
  for (size_t i = 0; i < b.staged.size(); ++i)
    out += " __kbcc_s" + std::to_string(i) + "[__kbcc_e] = " + b.staged[i].value + ";";
  out += " }\n      }\n      __syncthreads();\n";
  out += "      const " + lt + " __kbcc_n = " + b.hi + " - __kbcc_t0 < " + T + " ? " + b.hi + " - __kbcc_t0 : " + T +
         ";\n";
  out += "      for (" + lt + " " + t + " = __kbcc_t0; " + t + " < __kbcc_t0 + __kbcc_n; ++" + t + ")\n        " +
         body + "\n      __syncthreads();\n    }\n  } else\n    " + original + "\n}";
  return out;
}

// The most steps the loop of `b` runs on a capture of `in`; nullopt unless
// its bounds are known on every capture.
std::optional<int64_t> most_steps(const Broadcast &b, const Input &in) {
  auto lo = captured_values(b.loop.init, in), hi = captured_values(b.loop.bound, in);
  std::optional<int64_t> most;
  for (size_t i = 0; i < lo.size(); ++i) {
    if (!lo[i] || !hi[i]) return std::nullopt;
    int64_t steps = *hi[i] - *lo[i] + (b.loop.inclusive ? 1 : 0);
    most = std::max(most.value_or(steps), steps);
  }
  return most;
}

} // namespace

Expected<std::vector<Axis>> broadcast_space(const Input &in) {
  auto b = analyze(*in.ast);
  if (!b) return b.error();
  // A loop shorter than the smallest tile is staged whole by every block:
  // the barriers and copies then replace nothing but reads the L1 cache
  // already broadcasts to the warp.
  constexpr int64_t kSmallestTile = 128;
  if (auto most = most_steps(*b, in); most && *most < kSmallestTile)
    return not_applicable("the loop runs at most " + std::to_string(*most) +
                          " steps on the captured launches, fewer than the smallest tile (" +
                          std::to_string(kSmallestTile) + ")");
  return std::vector<Axis>{{"tile", {"256", "128", "512"}}};
}

Expected<Output> broadcast_apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto b = analyze(k);
  if (!b) return b.error();
  long tile = int_param(params, "tile", 256);
  if (tile < 32 || tile > 1024 || tile % 32 != 0) return not_applicable("tile is not a multiple of 32 up to 1024");
  const std::string &src = k.source();
  size_t lb = statement_begin(k, b->loop.loop), lx = statement_end(k, b->loop.loop), bb = 0, bx = 0;
  if (lb == std::string::npos || lx == std::string::npos || !k.span(b->loop.loop->getBody()->getSourceRange(), bb, bx))
    return not_applicable("the loop is written in a macro");
  bx = std::min(lx, past_semicolon(src, bx));
  Edits body;
  for (size_t i = 0; i < b->staged.size(); ++i)
    for (const ArraySubscriptExpr *read : b->staged[i].reads) {
      size_t rb = 0, rx = 0;
      if (!k.span(read->getSourceRange(), rb, rx) || rb < bb || rx > bx)
        return not_applicable("a staged read is written in a macro");
      body.replace(rb - bb, rx - bb,
                   "__kbcc_s" + std::to_string(i) + "[" + b->loop.var->getName().str() + " - __kbcc_t0]");
    }
  auto body_text = body.apply(src.substr(bb, bx - bb));
  if (!body_text) return body_text.error();
  Edits e;
  e.replace(lb, lx, tiled_text(k, *b, tile, *body_text, src.substr(lb, lx - lb)));
  auto text = e.apply(src);
  if (!text) return text.error();
  Output out;
  out.source = *text;
  out.numerics = cache::kNumericsExact;
  return out;
}

} // namespace kbcc::transform
