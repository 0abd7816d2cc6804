// vectorized_loads and cache_hint_streaming: transforms of the streams of a
// 1-D global-index kernel (transform/streams.h).
//
// vectorized_loads: each thread handles V consecutive items, i0 = thread * V,
// with one 16-byte (or V-element) load per read stream and one store per
// written stream when all V items pass the bound guards (fast path), else the
// items one by one as before (tail). A stream is vectorized when every access
// runs for every in-range item, outside loops; a read stream is never written
// and is read before any store of the body; a written stream is stored by
// exactly one whole statement and never read. Every stream stored outside
// loops must be vectorized: the others would be stored V elements apart by
// each thread. The launch adapter checks each vectorized pointer's
// alignment (aligned(p, bytes) preconditions).
//
// cache_hint_streaming: reads p[i] of streams become __ldcs(&p[i]) and stores
// p[i] = v become __stcs(&p[i], v) (evict-first: read once, written once);
// accesses inside loops are left alone. Nothing else changes.
#include "cache/variant.h"
#include "transform/edits.h"
#include "transform/streams.h"
#include "transform/transform.h"
#include "transform/uniform.h"

#include <algorithm>
#include <functional>

namespace kbcc::transform {
using namespace clang;

namespace {

struct Vector {
  const Stream *stream = nullptr;
  bool load = false;
  std::string name; // __kbcc_l<n> or __kbcc_s<n>
  std::string type; // struct __kbcc_v<n>
};

struct Plan {
  StreamPlan streams;
  std::vector<Vector> vectors;
  unsigned lanes = 0;              // V
  std::vector<std::string> bounds; // the guards' bounds, as text valid at the kernel's entry
};

Expected<Plan> analyze(const KernelAst &k) {
  auto sp = stream_plan(k);
  if (!sp) return sp.error();
  Plan p;
  p.streams = std::move(*sp);
  unsigned widest = 0;
  std::string scalar; // a stream the fast path would store V elements apart
  for (const Stream &s : p.streams.streams) {
    bool ok =
        s.element_bytes > 0 && s.element_bytes <= 8 && !(s.element_bytes & (s.element_bytes - 1)) &&
        std::all_of(s.accesses.begin(), s.accesses.end(), [](const StreamAccess &a) { return a.always && !a.in_loop; });
    if (ok && s.loads())
      ok = std::all_of(s.accesses.begin(), s.accesses.end(),
                       [&](const StreamAccess &a) { return load_precedes_stores(k, p.streams, a); });
    else if (ok)
      ok = s.stores() && s.accesses.size() == 1;
    bool stored_outside_loops =
        std::any_of(s.accesses.begin(), s.accesses.end(), [](const StreamAccess &a) { return a.store && !a.in_loop; });
    if (!ok) {
      if (stored_outside_loops && scalar.empty()) scalar = s.param->getName().str();
      continue;
    }
    std::string n = std::to_string(p.vectors.size());
    p.vectors.push_back({&s, s.loads(), (s.loads() ? "__kbcc_l" : "__kbcc_s") + n, "__kbcc_v" + n});
    widest = std::max(widest, s.element_bytes);
  }
  if (p.vectors.empty())
    return not_applicable("no stream is read or written at the thread's own element on every item");
  // A thread's V items would store it one element at a time, V elements
  // apart, so each store of a warp would write parts of V times as many
  // sectors (reads of such a stream mostly hit L1 and are left as they are).
  if (!scalar.empty())
    return not_applicable("'" + scalar + "' is stored at the thread's own element but cannot be vectorized");
  p.lanes = 16 / widest;
  if (p.lanes < 2) return not_applicable("the streams' elements are 16 bytes wide already");
  // The fast path's check runs before the item's code: the bounds must be known there.
  for (const clang::Expr *b : p.streams.bounds) {
    auto text = uniform_text(k, b);
    if (!text)
      return not_applicable("the bound '" + k.text(b->getSourceRange()) + "' is not computed from parameters alone");
    p.bounds.push_back(*text);
  }
  return p;
}

// The body's inner text (between its braces) with `edits` applied; every edit
// lies inside the body.
Expected<std::string> inner_text(const KernelAst &k, const CompoundStmt *body, const Edits &edits) {
  auto text = edits.apply(k.source());
  if (!text) return text.error();
  size_t open = k.offset(body->getLBracLoc()), close = k.offset(body->getRBracLoc());
  if (open == std::string::npos || close == std::string::npos) return not_applicable("the body is written in a macro");
  size_t shift = text->size() - k.source().size();
  return text->substr(open + 1, close + shift - open - 1);
}

Expected<std::string> fast_copy(const KernelAst &k, const Plan &p, unsigned lane) {
  Edits e;
  std::string l = std::to_string(lane);
  if (auto st = retarget_items(k, p.streams.space, "__kbcc_i0 + " + l, "__kbcc_f" + l, e); !st) return st.error();
  for (const Vector &v : p.vectors)
    for (const StreamAccess &a : v.stream->accesses) {
      size_t b = 0, x = 0;
      if (!k.span(a.expr->getSourceRange(), b, x)) return not_applicable("a stream access is written in a macro");
      e.replace(b, x, v.name + ".e[" + l + "]");
    }
  auto text = inner_text(k, p.streams.space.body, e);
  if (!text) return text.error();
  return "    {" + *text + "}\n" + label_if_used(*text, "__kbcc_f" + l);
}

Expected<std::vector<Axis>> vector_space(const Input &in) {
  auto p = analyze(*in.ast);
  if (!p) return p.error();
  return std::vector<Axis>{{"block", {"256", "128", "512"}}};
}

Expected<Output> vector_apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto p = analyze(k);
  if (!p) return p.error();
  long block = 256;
  if (auto it = params.find("block"); it != params.end()) block = std::atol(it->second.c_str());
  if (block < 32 || block > 1024 || block % 32) return not_applicable("block must be a multiple of 32 up to 1024");
  std::string V = std::to_string(p->lanes);
  std::string body = "{\n";
  for (const Vector &v : p->vectors) {
    QualType t = v.stream->param->getType()->getPointeeType().getUnqualifiedType();
    body += "  struct __align__(" + std::to_string(p->lanes * v.stream->element_bytes) + ") " + v.type + " { " +
            t.getAsString() + " e[" + V + "]; };\n";
  }
  body += "  const unsigned long long __kbcc_i0 = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * " + V +
          "ull;\n  if (";
  for (size_t i = 0; i < p->bounds.size(); ++i)
    body += std::string(i ? " && " : "") + "(long long)__kbcc_i0 + " + V + " <= (long long)" + p->bounds[i];
  body += ") {\n";
  for (const Vector &v : p->vectors) {
    std::string name = v.stream->param->getName().str();
    body += v.load ? "    const " + v.type + " " + v.name + " = *reinterpret_cast<const " + v.type + " *>(" + name +
                         " + __kbcc_i0);\n"
                   : "    " + v.type + " " + v.name + ";\n";
  }
  for (unsigned lane = 0; lane < p->lanes; ++lane) {
    auto copy = fast_copy(k, *p, lane);
    if (!copy) return copy.error();
    body += *copy;
  }
  for (const Vector &v : p->vectors)
    if (!v.load)
      body += "    *reinterpret_cast<" + v.type + " *>(" + v.stream->param->getName().str() +
              " + __kbcc_i0) = " + v.name + ";\n";
  Edits tail;
  if (auto st = retarget_items(k, p->streams.space, "__kbcc_i0 + __kbcc_v", "__kbcc_t", tail); !st) return st.error();
  auto scalar = inner_text(k, p->streams.space.body, tail);
  if (!scalar) return scalar.error();
  body += "  } else {\n    for (unsigned __kbcc_v = 0; __kbcc_v < " + V + "u; ++__kbcc_v) {\n    {" + *scalar + "}\n" +
          label_if_used(*scalar, "__kbcc_t") + "    }\n  }\n}";
  size_t open = k.offset(p->streams.space.body->getLBracLoc()), close = k.offset(p->streams.space.body->getRBracLoc());
  Output out;
  out.source = k.source().substr(0, open) + body + k.source().substr(close + 1);
  launch::LaunchMapping m;
  long unit = block * p->lanes;
  m.grid = {"ceil_div(grid.x * block.x, " + std::to_string(unit) + ")", "1", "1"};
  m.block = {std::to_string(block), "1", "1"};
  m.shared = "0";
  m.preconditions = fixed_dims_preconditions(p->streams.space);
  m.preconditions.push_back(coverage_precondition(p->streams.space, 0, unit));
  for (const Vector &v : p->vectors)
    m.preconditions.push_back("aligned(" + v.stream->param->getName().str() + ", " +
                              std::to_string(p->lanes * v.stream->element_bytes) + ")");
  out.launch = m;
  out.numerics = cache::kNumericsExact;
  out.size_params.assign(p->streams.space.bound_params.begin(), p->streams.space.bound_params.end());
  return out;
}

// Element types __ldcs/__stcs take.
bool hinted_type(QualType t) {
  const auto *b = t->getAs<BuiltinType>();
  if (!b) return false;
  switch (b->getKind()) {
  case BuiltinType::Char_S:
  case BuiltinType::Char_U:
  case BuiltinType::SChar:
  case BuiltinType::UChar:
  case BuiltinType::Short:
  case BuiltinType::UShort:
  case BuiltinType::Int:
  case BuiltinType::UInt:
  case BuiltinType::LongLong:
  case BuiltinType::ULongLong:
  case BuiltinType::Float:
  case BuiltinType::Double:
    return true;
  default:
    return false;
  }
}

// The stream accesses cache_hint_streaming rewrites.
Expected<std::vector<const StreamAccess *>> hinted(const StreamPlan &p) {
  std::vector<const StreamAccess *> out;
  for (const Stream &s : p.streams)
    if (hinted_type(s.param->getType()->getPointeeType().getUnqualifiedType()))
      for (const StreamAccess &a : s.accesses)
        if (!a.in_loop) out.push_back(&a);
  if (out.empty()) return not_applicable("no stream access outside loops with a type __ldcs/__stcs take");
  return out;
}

Expected<std::vector<Axis>> hint_space(const Input &in) {
  auto p = stream_plan(*in.ast);
  if (!p) return p.error();
  auto h = hinted(*p);
  if (!h) return h.error();
  return std::vector<Axis>{};
}

Expected<Output> hint_apply(const Input &in, const Params &) {
  const KernelAst &k = *in.ast;
  auto p = stream_plan(k);
  if (!p) return p.error();
  auto h = hinted(*p);
  if (!h) return h.error();
  Edits e;
  for (const StreamAccess *a : *h) {
    std::string access = k.text(a->expr->getSourceRange());
    if (access.empty()) return not_applicable("a stream access is written in a macro");
    if (!a->store) {
      size_t b = 0, x = 0;
      k.span(a->expr->getSourceRange(), b, x);
      e.replace(b, x, "__ldcs(&" + access + ")");
      continue;
    }
    // `p[i] = value` -> `__stcs(&p[i], value)`; reads inside value are edited on their own.
    size_t b = 0, x = 0, vb = 0, vx = 0;
    if (!k.span(a->store->getSourceRange(), b, x) || !k.span(a->store->getRHS()->getSourceRange(), vb, vx))
      return not_applicable("a store is written in a macro");
    e.replace(b, vb, "__stcs(&" + access + ", ");
    e.insert(vx, ")");
  }
  auto text = e.apply(k.source());
  if (!text) return text.error();
  Output out;
  out.source = *text;
  out.numerics = cache::kNumericsExact;
  return out;
}

} // namespace

Transform vectorize_transform() {
  return {"vectorized_loads",
          cache::kNumericsExact,
          "each thread handles V consecutive items with one 16-byte load or store per stream when all are in "
          "range (alignment checked at launch), one by one otherwise",
          true,
          vector_space,
          vector_apply};
}

Transform cache_hint_transform() {
  return {"cache_hint_streaming",
          cache::kNumericsExact,
          "reads and writes of the thread's own element use evict-first cache hints (__ldcs/__stcs)",
          true,
          hint_space,
          hint_apply};
}

} // namespace kbcc::transform
