// vectorized_loads and cache_hint_streaming: transforms of the streams of a
// 1-D global-index kernel (transform/streams.h).
//
// vectorized_loads: each thread handles V consecutive items, i0 = thread * V,
// with one 16-byte (or V-element) load per read stream and one store per
// written stream when all V items pass the bound guards (fast path), else the
// items one by one as before (tail). A stream of records of R elements
// (p[R * i + c]) is loaded or stored as the V items' R * V elements, in
// 16-byte pieces where its alignment allows; every field must be accessed,
// a stored record's fields each stored by every item, and the accesses must
// be in order (below), so that the vector holds exactly the elements the
// items access. A stream is vectorized when every access
// runs outside loops, and every read for every in-range item (a read behind a
// branch counts when every item reads or writes the stream, as in
// `y[i] = c ? 0 : y[i] * s` or an if and an else that both do); a read stream
// is never written and is read before any store of the body; a written stream
// is stored by exactly one whole statement and never read; an updated stream
// (`y[i] = a * x[i] + y[i]`, `y[i] += x[i]`) is stored by exactly one whole
// statement and read before any store of the body, so its vector is loaded
// first, updated by each item and stored at the end. The stores of the vectors
// follow their statements' order. A store behind a data-dependent branch sets
// its item's bit in a mask: the vector is stored whole when every item stored,
// else element by element for the items that did, so no element the kernel as
// written leaves alone is written. When only that order refuses a stream and
// the body touches memory through its streams alone, every stream may be read
// after stores and stored several times, on launches whose stream pointers
// differ (distinct(p, q) preconditions). Every stream stored outside loops must
// be vectorized: the others would be stored V elements apart by each thread.
// The launch adapter checks each vectorized pointer's alignment (aligned(p,
// bytes) preconditions).
//
// cache_hint_streaming: reads p[i] of streams become __ldcs(&p[i]) and stores
// p[i] = v become __stcs(&p[i], v) (evict-first: read once, written once),
// p[i] op= v becomes __stcs(&p[i], (T)(__ldcs(&p[i]) op (v))); accesses
// inside loops are left alone. Nothing else changes.
#include "cache/variant.h"
#include "tooling/source_range.h"
#include "transform/analysis.h"
#include "transform/edits.h"
#include "transform/streams.h"
#include "transform/transform.h"
#include "transform/uniform.h"

#include <algorithm>
#include <functional>
#include <set>

namespace kbcc::transform {
using namespace clang;

namespace {

// The longest record a vector holds: R * V elements of up to 16 / V bytes.
constexpr unsigned kMaxRecord = 4;

struct Vector {
  const Stream *stream = nullptr;
  bool load = false, store = false; // both: an updated stream
  std::string name;                 // __kbcc_l<n>, __kbcc_s<n> or __kbcc_u<n>
  std::string type;                 // struct __kbcc_v<n>
  // Stored behind a data-dependent branch: __kbcc_m<n>, whose bit l is set
  // when item l stored; "" otherwise.
  std::string mask;
  size_t stored_at = 0; // the store statement's offset in the definition

  // The vector's elements for V items: R * V.
  unsigned elements(unsigned lanes) const { return stream->record * lanes; }
  // Its alignment in bytes: the largest power of two up to 16 that divides
  // its size (its first element is R * V elements past an aligned pointer).
  unsigned alignment(unsigned lanes) const {
    unsigned bytes = elements(lanes) * stream->element_bytes;
    return std::min(16u, bytes & -bytes);
  }
  // The fast path's first element: `p + __kbcc_i0`, or `p + R * __kbcc_i0`.
  std::string start() const {
    std::string p = stream->param->getName().str();
    return stream->record > 1 ? p + " + " + std::to_string(stream->record) + "ull * __kbcc_i0" : p + " + __kbcc_i0";
  }
};

// Whether access `a` of stream `s` may read what memory held before the
// item's code: it reads, and no plain store of `s` that runs on every item
// ends before it.
bool reads_memory(const KernelAst &k, const Stream &s, const StreamAccess &a) {
  if (!a.reads()) return false;
  size_t at = k.offset(a.expr->getBeginLoc());
  return std::none_of(s.accesses.begin(), s.accesses.end(), [&](const StreamAccess &st) {
    size_t b = 0, x = 0;
    return st.field == a.field && st.store && st.always && !st.reads() && k.span(st.store->getSourceRange(), b, x) &&
           x <= at;
  });
}

// Why stream `s` cannot be vectorized, or "" when it can: every access runs
// outside loops, every read for every in-range item (a read, a compound store's
// too, may be behind a branch when every item reads or writes the stream:
// Stream::every_item; a plain store may be behind any); with `ordered`, a read
// stream is read before every write of the body, and a written or updated
// stream is stored by one whole statement, an updated one read (a compound
// store's read too) before every write. Without `ordered` (the streams'
// pointers then known distinct, and the body touching no other memory), a
// stream may be read after stores and stored more than once: each item's
// element holds the value its last store wrote. Sets `load`/`store` to the
// vector's kind; `order` when only the order refuses it. A stream of records
// (Stream::record > 1) needs every field accessed, a stored one every field
// stored by every item (the whole records are stored), and `ordered`.
std::string unvectorizable(const KernelAst &k, const StreamPlan &p, const Stream &s, bool ordered, bool &load,
                           bool &store, bool &order) {
  if (s.element_bytes == 0 || s.element_bytes > 8 || (s.element_bytes & (s.element_bytes - 1)))
    return "its elements are not 1, 2, 4 or 8 bytes";
  std::string records = "its records of " + std::to_string(s.record) + " elements";
  if (s.record > kMaxRecord) return records + " are longer than " + std::to_string(kMaxRecord);
  if (!s.all_fields) return "only some fields of " + records + " are accessed";
  // A read behind a branch may take its element from the vector when every
  // item reads or writes its element: the kernel as written then accesses
  // all the vector's elements too. A store behind one is masked
  // (Vector::mask).
  for (const StreamAccess &a : s.accesses) {
    if (a.in_loop) return "it is accessed inside a loop";
    if (!a.always && a.reads() && !s.every_item) return "it is read only for some items";
  }
  load =
      std::any_of(s.accesses.begin(), s.accesses.end(), [&](const StreamAccess &a) { return reads_memory(k, s, a); });
  store = std::any_of(s.accesses.begin(), s.accesses.end(), [](const StreamAccess &a) { return a.store; });
  if (s.record > 1 && store && !s.stored_every_item)
    return "not every field of " + records + " is stored by every item";
  order = true;
  if (!ordered) return s.record > 1 ? records + " may overlap another stream's elements" : "";
  for (unsigned c = 0; c < s.record; ++c)
    if (std::count_if(s.accesses.begin(), s.accesses.end(),
                      [&](const StreamAccess &a) { return a.store && a.field == c; }) > 1)
      return s.record > 1 ? "a field of " + records + " is stored more than once" : "it is stored more than once";
  for (const StreamAccess &a : s.accesses) {
    // The stores of the record's other fields touch other elements, which
    // the vector holds apart from this one.
    std::set<size_t> other_fields;
    for (const StreamAccess &st : s.accesses)
      if (st.store && st.field != a.field) other_fields.insert(k.offset(st.store->getBeginLoc()));
    if (a.reads() && !(a.store ? first_write(k, p, a, other_fields) : load_precedes_stores(k, p, a, other_fields)))
      return "it is read after a store of the body";
  }
  return "";
}

// Why the body may touch memory other than through the streams of `p`, or
// "" when it cannot: every subscript, dereference or arrow member in memory
// is a stream access, every write a stream's store, every global variable
// read-only, and no user function is called. The streams' elements must be
// of one size, so that distinct pointers mean distinct elements of an item.
std::string other_memory(const StreamPlan &p) {
  std::set<const Expr *> accesses;
  size_t stores = 0;
  for (const Stream &s : p.streams)
    for (const StreamAccess &a : s.accesses) {
      accesses.insert(a.expr);
      stores += a.store != nullptr;
      if (s.element_bytes != p.streams[0].element_bytes) return "the streams' elements differ in size";
    }
  if (stores != p.writes.size()) return "the body writes memory other than its streams";
  std::string why;
  walk(p.space.body, [&](const Stmt *st) {
    const auto *e = dyn_cast<Expr>(st);
    const auto *u = dyn_cast<UnaryOperator>(st);
    const auto *m = dyn_cast<MemberExpr>(st);
    const auto *ref = dyn_cast<DeclRefExpr>(st);
    const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    const auto *call = dyn_cast<CallExpr>(st);
    const FunctionDecl *fd = call ? call->getDirectCallee() : nullptr;
    bool access = isa<ArraySubscriptExpr>(st) || (u && u->getOpcode() == UO_Deref) || (m && m->isArrow());
    if (why.empty() && access && is_memory(e) && !accesses.count(e))
      why = "the body reads memory other than its streams";
    if (why.empty() && var && var->hasGlobalStorage() && !var->getType().isConstQualified())
      why = "the body reads global variable '" + var->getName().str() + "'";
    if (why.empty() && call &&
        (!fd || (fd->hasBody() && !tooling::in_system_header(fd, fd->getASTContext().getSourceManager()))))
      why = "the body calls a function";
  });
  return why;
}

struct Plan {
  StreamPlan streams;
  std::vector<Vector> vectors;
  unsigned lanes = 0;              // V
  std::vector<std::string> bounds; // the guards' bounds, as text valid at the kernel's entry
  bool distinct = false;           // vectorized without `ordered`: the streams' pointers must differ
};

// The plan vectorizing the streams of `sp` (`ordered`: see unvectorizable).
// Error "not-applicable" with the reason; `order` is set when a stream
// stored outside loops, or every stream, is refused for its order alone.
Expected<Plan> vectors(const KernelAst &k, StreamPlan sp, bool ordered, bool &order) {
  Plan p;
  p.streams = std::move(sp);
  unsigned widest = 0;
  std::string scalar; // a stream the fast path would store V elements apart, and why
  bool scalar_order = false, all_order = true;
  for (const Stream &s : p.streams.streams) {
    bool load = false, store = false, by_order = false;
    std::string why = unvectorizable(k, p.streams, s, ordered, load, store, by_order);
    if (!why.empty()) {
      all_order = all_order && by_order;
      bool stored_outside_loops = std::any_of(s.accesses.begin(), s.accesses.end(),
                                              [](const StreamAccess &a) { return a.store && !a.in_loop; });
      if (stored_outside_loops && scalar.empty()) {
        scalar =
            "'" + s.param->getName().str() + "' is stored at the thread's own element but cannot be vectorized: " + why;
        scalar_order = by_order;
      }
      continue;
    }
    std::string n = std::to_string(p.vectors.size());
    Vector v;
    v.stream = &s;
    v.load = load;
    v.store = store;
    v.name = (store ? load ? "__kbcc_u" : "__kbcc_s" : "__kbcc_l") + n;
    v.type = "__kbcc_v" + n;
    if (store && !s.stored_every_item) v.mask = "__kbcc_m" + n;
    for (const StreamAccess &a : s.accesses)
      if (a.store) v.stored_at = k.offset(a.store->getBeginLoc());
    p.vectors.push_back(std::move(v));
    widest = std::max(widest, s.element_bytes);
  }
  // A thread's V items would store it one element at a time, V elements
  // apart, so each store of a warp would write parts of V times as many
  // sectors (reads of such a stream mostly hit L1 and are left as they are).
  if (!scalar.empty()) {
    order = scalar_order;
    return not_applicable(scalar);
  }
  if (p.vectors.empty()) {
    order = all_order && !p.streams.streams.empty();
    return not_applicable("no stream is read or written at the thread's own element on every item");
  }
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

// The plan with accesses in order (unvectorizable); failing that for the
// order alone, the one without, when the body touches memory only through
// its streams (other_memory), on launches whose stream pointers differ.
Expected<Plan> analyze(const KernelAst &k) {
  auto sp = stream_plan(k);
  if (!sp) return sp.error();
  bool order = false;
  auto plan = vectors(k, *sp, /*ordered=*/true, order);
  if (plan || !order) return plan;
  if (std::string why = other_memory(*sp); !why.empty()) return not_applicable(plan.error().message + ", and " + why);
  auto relaxed = vectors(k, std::move(*sp), /*ordered=*/false, order);
  if (!relaxed) return plan;
  relaxed->distinct = true;
  return relaxed;
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

// The fast path's store of vector `v` of a plan of `lanes` items: whole, or,
// for a masked one not stored by every item, the elements whose items stored.
std::string vector_store(const Vector &v, unsigned lanes) {
  std::string p = v.stream->param->getName().str();
  std::string whole = "*reinterpret_cast<" + v.type + " *>(" + v.start() + ") = " + v.name + ";\n";
  if (v.mask.empty()) return "    " + whole;
  std::string m = v.mask, V = std::to_string(lanes);
  return "    if (" + m + " == " + std::to_string((1u << lanes) - 1) + "u) " + whole +
         "    else for (unsigned __kbcc_v = 0; __kbcc_v < " + V + "u; ++__kbcc_v) if (" + m + " >> __kbcc_v & 1u) " +
         p + "[__kbcc_i0 + __kbcc_v] = " + v.name + ".e[__kbcc_v];\n";
}

Expected<std::string> fast_copy(const KernelAst &k, const Plan &p, unsigned lane) {
  Edits e;
  std::string l = std::to_string(lane);
  if (auto st = retarget_items(k, p.streams.space, "__kbcc_i0 + " + l, "__kbcc_f" + l, e); !st) return st.error();
  for (const Vector &v : p.vectors)
    for (const StreamAccess &a : v.stream->accesses) {
      size_t b = 0, x = 0;
      if (!k.span(a.expr->getSourceRange(), b, x)) return not_applicable("a stream access is written in a macro");
      e.replace(b, x, v.name + ".e[" + std::to_string(v.stream->record * lane + a.field) + "]");
      // `p[i] = v` -> `(__kbcc_m<n> |= bit, p[i] = v)`, of the same value.
      if (!v.mask.empty() && a.store) {
        size_t sb = 0, sx = 0;
        if (!k.span(a.store->getSourceRange(), sb, sx)) return not_applicable("a store is written in a macro");
        e.insert(sb, "(" + v.mask + " |= " + std::to_string(1u << lane) + "u, ");
        e.insert(sx, ")");
      }
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
    body += "  struct __align__(" + std::to_string(v.alignment(p->lanes)) + ") " + v.type + " { " + t.getAsString() +
            " e[" + std::to_string(v.elements(p->lanes)) + "]; };\n";
  }
  body += "  const unsigned long long __kbcc_i0 = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) * " + V +
          "ull;\n  if (";
  for (size_t i = 0; i < p->bounds.size(); ++i)
    body += std::string(i ? " && " : "") + "(long long)__kbcc_i0 + " + V + " <= (long long)" + p->bounds[i];
  body += ") {\n";
  for (const Vector &v : p->vectors) {
    body += "    " + std::string(v.store ? "" : "const ") + v.type + " " + v.name;
    body += v.load ? " = *reinterpret_cast<const " + v.type + " *>(" + v.start() + ");\n" : std::string(";\n");
    if (!v.mask.empty()) body += "    unsigned " + v.mask + " = 0u;\n";
  }
  for (unsigned lane = 0; lane < p->lanes; ++lane) {
    auto copy = fast_copy(k, *p, lane);
    if (!copy) return copy.error();
    body += *copy;
  }
  std::vector<const Vector *> stored;
  for (const Vector &v : p->vectors)
    if (v.store) stored.push_back(&v);
  std::sort(stored.begin(), stored.end(), [](const Vector *a, const Vector *b) { return a->stored_at < b->stored_at; });
  for (const Vector *v : stored)
    body += vector_store(*v, p->lanes);
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
                              std::to_string(v.alignment(p->lanes)) + ")");
  const std::vector<Stream> &all = p->streams.streams;
  for (size_t a = 0; p->distinct && a < all.size(); ++a)
    for (size_t b = a + 1; b < all.size(); ++b)
      if (!all[a].loads() || !all[b].loads())
        m.preconditions.push_back("distinct(" + all[a].param->getName().str() + ", " + all[b].param->getName().str() +
                                  ")");
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
    // `p[i] = value` -> `__stcs(&p[i], value)`, `p[i] op= value` ->
    // `__stcs(&p[i], (T)(__ldcs(&p[i]) op (value)))`; reads inside value are
    // edited on their own.
    size_t b = 0, x = 0, vb = 0, vx = 0;
    if (!k.span(a->store->getSourceRange(), b, x) || !k.span(a->store->getRHS()->getSourceRange(), vb, vx))
      return not_applicable("a store is written in a macro");
    if (!a->store->isCompoundAssignmentOp()) {
      e.replace(b, vb, "__stcs(&" + access + ", ");
      e.insert(vx, ")");
      continue;
    }
    std::string op =
        BinaryOperator::getOpcodeStr(BinaryOperator::getOpForCompoundAssignment(a->store->getOpcode())).str();
    e.replace(b, vb,
              "__stcs(&" + access + ", (" + type_text(a->expr->getType(), k.context()) + ")(__ldcs(&" + access + ") " +
                  op + " (");
    e.insert(vx, ")))");
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
