// thread_coarsening and the atomic transforms built on it
// (smem_privatized_atomics, warp_aggregated_atomics).
//
// thread_coarsening: each thread of a global-index kernel (x only) handles
// `factor` items, block-strided so that a warp's accesses stay contiguous:
// item = (blockIdx.x * factor + k) * blockDim.x + threadIdx.x; `return` ends
// the item, not the thread. The grid shrinks by the factor. A kernel indexed
// in x and y handles `factor` consecutive rows per thread instead (a warp's
// accesses run along x, and neighbouring rows share what a stencil reads):
// row = (blockIdx.y * blockDim.y + threadIdx.y) * factor + k, in blocks of
// the `block` shape; the grid shrinks in y. A kernel indexed in x, y and z
// handles `factor` consecutive planes (z) per thread the same way. A kernel
// that synchronizes or uses shared memory, which the index space refuses, is
// coarsened across its barriers instead (transform/lockstep.h).
//
// smem_privatized_atomics: on top of that coarsening (rows per thread in a
// 2-D kernel), atomic updates of one parameter array (whose result is unused
// and which the kernel touches nowhere else) go to a per-block copy of its
// first `bins` elements in shared memory, zeroed and flushed by the block's
// threads together, with one global atomic per non-zero bin at the end;
// indexes outside the copy still update global memory directly.
//
// warp_aggregated_atomics: on top of that coarsening, atomic updates whose
// address is the same for every thread of the grid (`atomicAdd(sum, x)`,
// `atomicMax(&best[0], v)`) go to a register of each thread instead; at the
// end, the block combines its registers with warp shuffles and one slot per
// warp in shared memory, and thread 0 issues one atomic per address. Where
// that form refuses, the warp form combines each atomic where it stands: the
// lanes updating the same address at the same time (__match_any_sync) hand
// their values to the lowest of them, which issues one atomic; the launch is
// kept.
#include "cache/variant.h"
#include "transform/edits.h"
#include "transform/index_space.h"
#include "transform/lockstep.h"
#include "transform/transform.h"
#include "transform/uniform.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

namespace kbcc::transform {
using namespace clang;

namespace {

// Wraps the body in the coarsening loop; returns become "next item".
Status coarsen_body(const KernelAst &k, const IndexSpace &s, long factor, Edits &e) {
  size_t open = k.offset(s.body->getLBracLoc()), close = k.offset(s.body->getRBracLoc());
  if (open == std::string::npos || close == std::string::npos) return not_applicable("the body is written in a macro");
  std::string f = std::to_string(factor);
  e.insert(open + 1,
           "\n  #pragma unroll\n  for (unsigned __kbcc_k = 0; __kbcc_k < " + f +
               "u; ++__kbcc_k) {\n  const unsigned long long __kbcc_item = ((unsigned long long)blockIdx.x * " + f +
               "ull + __kbcc_k) * blockDim.x + threadIdx.x;\n  {");
  bool returns_inside = has_return(s.body);
  e.insert(close, std::string("  }\n") + (returns_inside ? "  __kbcc_next:;\n" : "") + "  }\n");
  return retarget_items(k, s, "__kbcc_item", "__kbcc_next", e);
}

bool valid_block(long block) { return block >= 32 && block <= 1024 && block % 32 == 0; }

// Wraps the body of a 2-D (3-D) kernel in a loop over `factor` consecutive
// rows (planes), the index of the kernel's last dimension; returns become
// "next row".
Status coarsen_rows(const KernelAst &k, const IndexSpace &s, long factor, Edits &e) {
  size_t open = k.offset(s.body->getLBracLoc()), close = k.offset(s.body->getRBracLoc());
  if (open == std::string::npos || close == std::string::npos) return not_applicable("the body is written in a macro");
  std::string f = std::to_string(factor), axis(1, "xyz"[s.dims - 1]);
  e.insert(open + 1, "\n  #pragma unroll\n  for (unsigned __kbcc_k = 0; __kbcc_k < " + f +
                         "u; ++__kbcc_k) {\n  const unsigned long long __kbcc_row = (unsigned long long)(blockIdx." +
                         axis + " * blockDim." + axis + " + threadIdx." + axis + ") * " + f + "ull + __kbcc_k;\n  {");
  e.insert(close, std::string("  }\n") + (has_return(s.body) ? "  __kbcc_next:;\n" : "") + "  }\n");
  for (const GlobalIndex &g : s.occurrences) {
    size_t b = 0, x = 0;
    if (!k.span(g.expr->getSourceRange(), b, x)) return not_applicable("the global index is written in a macro");
    if (g.dim == s.dims - 1) e.replace(b, x, as_index(k.source().substr(b, x - b), "__kbcc_row"));
  }
  return returns_to_goto(k, s.body, "__kbcc_next", e);
}

// Whether thread_coarsening takes `in`'s kernel across its barriers
// (transform/lockstep.h): the index-space form refuses a kernel that
// synchronizes or uses shared memory.
bool across_barriers(const Input &in) {
  Effects fx = effects_of(in.ast->kernel());
  return fx.barrier || fx.shared_memory;
}

Expected<std::vector<Axis>> coarsen_space(const Input &in) {
  if (across_barriers(in)) {
    auto form = lockstep_space(in);
    if (form) return form;
    return not_applicable("the kernel synchronizes threads or uses shared memory; across barriers: " +
                          form.error().message);
  }
  auto s = index_space(*in.ast, /*allow_2d=*/true, /*allow_atomics=*/true, /*allow_batch=*/true, /*allow_3d=*/true);
  if (!s) return s.error();
  if (s->dims == 3) return std::vector<Axis>{{"factor", {"4", "2", "8"}}, {"block", {"64x4x1", "256x1x1", "32x4x2"}}};
  if (s->dims == 2) return std::vector<Axis>{{"factor", {"4", "2", "8"}}, {"block", {"32x8", "32x4"}}};
  return std::vector<Axis>{{"factor", {"4", "2", "8", "16"}}, {"block", {"256", "128", "512"}}};
}

Expected<Output> coarsen_apply(const Input &in, const Params &params) {
  if (across_barriers(in)) return lockstep_apply(in, params);
  auto s = index_space(*in.ast, true, true, true, true);
  if (!s) return s.error();
  Output out;
  Edits e;
  long factor = int_param(params, "factor", 4);
  if (factor < 2 || factor > 64) return not_applicable("factor out of range");
  if (s->dims > 1) { // consecutive rows (2-D) or planes (3-D) per thread
    auto [bx, by, bz] = shape3_param(params, "block", s->dims == 3 ? "64x4x1" : "32x8");
    if (bx < 32 || by < 1 || bz < 1 || bz > 64 || bx * by * bz > 1024 || bx % 32 != 0 || (s->dims == 2 && bz != 1))
      return not_applicable("block is not a valid " + std::to_string(s->dims) + "-D shape");
    if (auto st = coarsen_rows(*in.ast, *s, factor, e); !st) return st.error();
    out.launch =
        s->dims == 3 ? tile_mapping(*s, bx, by, bx, by, bz * factor, bz) : tile_mapping(*s, bx, by * factor, bx, by);
  } else {
    long block = int_param(params, "block", 256);
    if (!valid_block(block)) return not_applicable("block out of range");
    if (auto st = coarsen_body(*in.ast, *s, factor, e); !st) return st.error();
    out.launch = coarse_mapping(*s, block, factor);
  }
  auto text = e.apply(in.ast->source());
  if (!text) return text.error();
  out.source = *text;
  out.numerics = cache::kNumericsExact;
  out.size_params.assign(s->bound_params.begin(), s->bound_params.end());
  return out;
}

// One atomic update that can go to the shared copy.
struct Update {
  const CallExpr *call = nullptr;
  const Expr *index = nullptr;
  const Expr *value = nullptr;
};

struct Privatizable {
  IndexSpace space;
  const ParmVarDecl *array = nullptr;
  std::vector<Update> updates;
  bool byte_index = false; // every index is an 8-bit value: 256 bins hold them all
  bool floating = false;
};

// `&a[i]` or `a + i` with `a` the parameter: (a, i).
std::pair<const ParmVarDecl *, const Expr *> target_of(const Expr *addr) {
  addr = addr->IgnoreParenImpCasts();
  auto param = [](const Expr *e) {
    const auto *ref = dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
    return ref ? dyn_cast<ParmVarDecl>(ref->getDecl()) : nullptr;
  };
  if (const auto *u = dyn_cast<UnaryOperator>(addr); u && u->getOpcode() == UO_AddrOf)
    if (const auto *sub = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParenImpCasts()))
      return {param(sub->getBase()), sub->getIdx()};
  if (const auto *b = dyn_cast<BinaryOperator>(addr); b && b->getOpcode() == BO_Add)
    return {param(b->getLHS()), b->getRHS()};
  return {nullptr, nullptr};
}

// Atomic calls that are whole statements.
void statement_calls(const Stmt *s, std::set<const CallExpr *> &out) {
  if (!s) return;
  auto take = [&](const Stmt *x) {
    if (const auto *c = dyn_cast_or_null<CallExpr>(x)) out.insert(c);
  };
  if (const auto *c = dyn_cast<CompoundStmt>(s))
    for (const Stmt *x : c->body())
      take(x);
  if (const auto *i = dyn_cast<IfStmt>(s)) take(i->getThen()), take(i->getElse());
  if (const auto *f = dyn_cast<ForStmt>(s)) take(f->getBody());
  if (const auto *w = dyn_cast<WhileStmt>(s)) take(w->getBody());
  for (const Stmt *c : s->children())
    statement_calls(c, out);
}

Expected<Privatizable> privatizable(const KernelAst &k) {
  auto s = index_space(k, /*allow_2d=*/true, /*allow_atomics=*/true);
  if (!s) return s.error();
  Effects fx = effects_of(k.kernel());
  if (fx.atomic_calls.empty()) return not_applicable("the kernel has no atomic updates");
  std::set<const CallExpr *> statements;
  statement_calls(s->body, statements);
  Privatizable p;
  p.space = *s;
  p.byte_index = true;
  for (const CallExpr *call : fx.atomic_calls) {
    const FunctionDecl *fd = call->getDirectCallee();
    if (!fd || fd->getName() != "atomicAdd" || call->getNumArgs() != 2)
      return not_applicable("only atomicAdd updates are privatized");
    if (!statements.count(call)) return not_applicable("an atomic's result is used");
    auto [array, index] = target_of(call->getArg(0));
    if (!array || !index) return not_applicable("an atomic does not update a[i] of a parameter a");
    if (p.array && p.array != array) return not_applicable("atomics update more than one array");
    p.array = array;
    p.updates.push_back({call, index, call->getArg(1)});
    QualType it = index->IgnoreParenImpCasts()->getType();
    p.byte_index = p.byte_index && it->isIntegerType() && k.context().getTypeSize(it) == 8;
  }
  QualType t = p.array->getType()->getPointeeType().getUnqualifiedType();
  bool supported = t->isSpecificBuiltinType(BuiltinType::Int) || t->isSpecificBuiltinType(BuiltinType::UInt) ||
                   t->isSpecificBuiltinType(BuiltinType::ULongLong) || t->isSpecificBuiltinType(BuiltinType::Float);
  if (!supported) return not_applicable("the updated array's element type has no shared-memory atomicAdd");
  p.floating = t->isFloatingType();
  if (references(s->body, p.array) != static_cast<int>(p.updates.size()))
    return not_applicable("the kernel reads or writes the updated array other than by the atomics");
  return p;
}

Expected<std::vector<Axis>> privatize_space(const Input &in) {
  auto p = privatizable(*in.ast);
  if (!p) return p.error();
  std::vector<Axis> axes = {{"factor", {"16", "64", "4"}}, {"block", {"256", "512"}}};
  if (p->space.dims == 2) axes[1].values = {"32x8", "32x16"}; // rows per thread, as thread_coarsening
  if (!p->byte_index) axes.push_back({"bins", {"1024", "256", "4096"}});
  return axes;
}

Expected<Output> privatize_apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto p = privatizable(k);
  if (!p) return p.error();
  bool rows = p->space.dims == 2;
  long factor = int_param(params, "factor", 16), block = int_param(params, "block", 256);
  auto [bx, by] = shape_param(params, "block", "32x8");
  long bins = p->byte_index ? 256 : int_param(params, "bins", 1024);
  bool shape = rows ? bx >= 32 && by >= 1 && bx * by <= 1024 && bx % 32 == 0 : valid_block(block);
  if (factor < 1 || factor > 256 || !shape || bins < 32 || bins > 8192)
    return not_applicable("factor, block or bins out of range");
  const std::string &src = k.source();
  std::string type = p->array->getType()->getPointeeType().getUnqualifiedType().getAsString();
  std::string a = p->array->getName().str(), n = std::to_string(bins);
  // The block's threads share the copy's bins, in x (then y) order.
  std::string first = rows ? "threadIdx.y * blockDim.x + threadIdx.x" : "threadIdx.x";
  std::string step = rows ? "blockDim.x * blockDim.y" : "blockDim.x";
  Edits e;
  size_t open = k.offset(p->space.body->getLBracLoc()), close = k.offset(p->space.body->getRBracLoc());
  if (open == std::string::npos || close == std::string::npos) return not_applicable("the body is written in a macro");
  e.insert(open + 1, "\n  __shared__ " + type + " __kbcc_bins[" + n + "];\n  for (unsigned __kbcc_i = " + first +
                         "; __kbcc_i < " + n + "u; __kbcc_i += " + step +
                         ") __kbcc_bins[__kbcc_i] = 0;\n  __syncthreads();");
  Output out;
  if (rows) {
    if (auto st = coarsen_rows(k, p->space, factor, e); !st) return st.error();
    out.launch = tile_mapping(p->space, bx, by * factor, bx, by);
  } else {
    if (auto st = coarsen_body(k, p->space, factor, e); !st) return st.error();
    out.launch = coarse_mapping(p->space, block, factor);
  }
  e.insert(close, "  __syncthreads();\n  for (unsigned __kbcc_i = " + first + "; __kbcc_i < " + n +
                      "u; __kbcc_i += " + step + ")\n    if (__kbcc_bins[__kbcc_i] != 0) atomicAdd(&" + a +
                      "[__kbcc_i], __kbcc_bins[__kbcc_i]);\n");
  for (const Update &u : p->updates) {
    size_t b = 0, x = 0;
    if (!k.span(u.call->getSourceRange(), b, x)) return not_applicable("an atomic is written in a macro");
    std::string index = k.text(u.index->getSourceRange()), value = k.text(u.value->getSourceRange());
    if (index.empty() || value.empty()) return not_applicable("an atomic's operands are written in a macro");
    std::string update = "{ const auto __kbcc_at = (";
    update += index;
    update += "); if ((unsigned long long)__kbcc_at < " + n + "ull) atomicAdd(&__kbcc_bins[__kbcc_at], ";
    update += value;
    update += "); else atomicAdd(&" + a + "[__kbcc_at], ";
    update += value;
    update += "); }";
    e.replace(b, past_semicolon(src, x), update);
  }
  auto text = e.apply(src);
  if (!text) return text.error();
  out.source = *text;
  out.numerics = p->floating ? cache::kNumericsReassociates : cache::kNumericsExact;
  if (p->floating && !p->space.bounds[0].empty()) out.reduction_length = p->space.bounds[0].front();
  out.size_params.assign(p->space.bound_params.begin(), p->space.bound_params.end());
  return out;
}

// An atomic update kbcc can combine in registers: its family and whether it
// subtracts (atomicSub, a sum of negated values).
struct Combiner {
  enum Family { Sum, Max, Min, Or, And, Xor } family = Sum;
  bool negated = false;
};

std::optional<Combiner> combiner(const std::string &name) {
  static const std::map<std::string, Combiner> table = {
      {"atomicAdd", {Combiner::Sum, false}}, {"atomicSub", {Combiner::Sum, true}},
      {"atomicMax", {Combiner::Max, false}}, {"atomicMin", {Combiner::Min, false}},
      {"atomicOr", {Combiner::Or, false}},   {"atomicAnd", {Combiner::And, false}},
      {"atomicXor", {Combiner::Xor, false}}};
  auto it = table.find(name);
  return it == table.end() ? std::nullopt : std::optional<Combiner>(it->second);
}

// The name of the function atomic `call` calls ("an atomic" when indirect).
std::string atomic_name(const CallExpr *call) {
  const FunctionDecl *fd = call->getDirectCallee();
  return fd ? fd->getName().str() : "an atomic";
}

// How atomic `call` combines, when it is a statement of `statements` (its
// result unused) of a combining operation; Error naming the reason otherwise.
Expected<Combiner> combining_statement(const CallExpr *call, const std::set<const CallExpr *> &statements) {
  auto c = combiner(atomic_name(call));
  if (!c || call->getNumArgs() != 2)
    return not_applicable(atomic_name(call) +
                          " is not an update that combines (atomicAdd, atomicSub, atomicMax, atomicMin, atomicOr, "
                          "atomicAnd, atomicXor)");
  if (!statements.count(call)) return not_applicable("an atomic's result is used");
  return *c;
}

// `x` combined with `y` (simple names: each is read once or twice).
std::string combined(Combiner::Family f, bool negated, const std::string &x, const std::string &y) {
  switch (f) {
  case Combiner::Sum:
    return x + (negated ? " - " : " + ") + y;
  case Combiner::Max:
    return "(" + y + " > " + x + " ? " + y + " : " + x + ")";
  case Combiner::Min:
    return "(" + y + " < " + x + " ? " + y + " : " + x + ")";
  case Combiner::Or:
    return x + " | " + y;
  case Combiner::And:
    return x + " & " + y;
  case Combiner::Xor:
    return x + " ^ " + y;
  }
  return x;
}

// The register of one aggregated address: for an element type (canonical
// CUDA text) and a family, the register's type (integer sums wrap like the
// atomic, so they run unsigned) and the family's identity; nullopt when CUDA
// has no such atomic for the type.
struct Register {
  std::string type, identity;
};
std::optional<Register> register_for(const std::string &type, Combiner::Family f) {
  struct Row {
    const char *type, *sum_type, *sum, *max, *min, *ones;
  };
  static const Row rows[] = {
      {"int", "unsigned int", "0u", "(-2147483647 - 1)", "2147483647", "(~0)"},
      {"unsigned int", "unsigned int", "0u", "0u", "0xffffffffu", "0xffffffffu"},
      {"unsigned long long", "unsigned long long", "0ull", "0ull", "0xffffffffffffffffull", "0xffffffffffffffffull"},
      {"long long", nullptr, nullptr, "(-9223372036854775807ll - 1)", "9223372036854775807ll", "(~0ll)"},
      {"float", "float", "-0.0f", nullptr, nullptr, nullptr}, // -0 + x == x for every x, also -0
      {"double", "double", "-0.0", nullptr, nullptr, nullptr}};
  for (const Row &r : rows) {
    if (type != r.type) continue;
    bool integer = r.ones != nullptr;
    const char *identity = f == Combiner::Sum   ? r.sum
                           : f == Combiner::Max ? r.max
                           : f == Combiner::Min ? r.min
                           : f == Combiner::And ? r.ones
                           : integer            ? "0"
                                                : nullptr;
    if (!identity) return std::nullopt;
    return Register{f == Combiner::Sum ? r.sum_type : r.type, std::string(identity)};
  }
  return std::nullopt;
}

// What atomic `call` (combining as `c`) updates.
struct Operand {
  std::string type; // the updated type, as written
  Register reg;     // the register its values combine in
  bool floating;
};

// The operand of atomic `call`; Error when its values do not combine in a
// register (no such atomic in CUDA, or a floating-point atomicSub).
Expected<Operand> operand_of(const KernelAst &k, const CallExpr *call, const Combiner &c) {
  QualType t = call->getArg(0)->getType()->getPointeeType();
  std::string type = type_text(t, k.context());
  auto reg = register_for(type, c.family);
  if (!reg || (c.negated && t->isFloatingType()))
    return not_applicable("no " + atomic_name(call) + " of " + type + " to combine");
  return Operand{type, *reg, t->isFloatingType()};
}

// Where an aggregated atomic writes: `text`, computed alike by every thread
// anywhere in the kernel, points into `array`, a pointer parameter or a
// __device__ variable; `via` is the local pointer the atomic names, if any.
struct Address {
  const ValueDecl *array = nullptr;
  std::string text;
  const VarDecl *via = nullptr;
};

// A pointer parameter the kernel never assigns, or a __device__ variable
// (not __constant__, not const) named by `e`; nullptr otherwise.
const ValueDecl *array_of(const KernelAst &k, const Expr *e) {
  const VarDecl *v = var_of(e);
  if (const auto *p = dyn_cast_or_null<ParmVarDecl>(v))
    return p->getType()->isPointerType() && !assigns(k.kernel()->getBody(), p) ? p : nullptr;
  bool device = v && v->hasGlobalStorage() && !v->isStaticLocal() && v->hasAttr<CUDADeviceAttr>() &&
                !v->hasAttr<CUDAConstantAttr>() && !v->hasAttr<CUDASharedAttr>() && !v->getType().isConstQualified();
  return device ? v : nullptr;
}

// `addr` when every thread computes it alike: `p`, `&p[c]`, `p + c` or
// `c + p` with `p` an array_of and `c` uniform_text; `&g` of a __device__
// scalar; or a local pointer, never assigned, initialized with one of
// those. nullopt otherwise.
std::optional<Address> uniform_address(const KernelAst &k, const Expr *addr) {
  addr = addr->IgnoreParenImpCasts();
  if (const VarDecl *local = var_of(addr); local && local->hasLocalStorage() && !isa<ParmVarDecl>(local)) {
    if (!local->getType()->isPointerType() || !local->getInit() || local->getType().isVolatileQualified() ||
        assigns(k.kernel()->getBody(), local))
      return std::nullopt;
    auto inner = uniform_address(k, local->getInit());
    if (!inner || inner->via) return std::nullopt;
    inner->via = local;
    return inner;
  }
  if (const ValueDecl *a = array_of(k, addr); a && a->getType()->isPointerType()) return Address{a, a->getName().str()};
  const Expr *base = nullptr, *index = nullptr;
  if (const auto *u = dyn_cast<UnaryOperator>(addr); u && u->getOpcode() == UO_AddrOf) {
    const Expr *sub = u->getSubExpr()->IgnoreParenImpCasts();
    if (const ValueDecl *g = array_of(k, sub); g && !isa<ParmVarDecl>(g) && g->getType()->isScalarType())
      return Address{g, "&" + g->getName().str()};
    if (const auto *e = dyn_cast<ArraySubscriptExpr>(sub)) base = e->getBase(), index = e->getIdx();
  } else if (const auto *b = dyn_cast<BinaryOperator>(addr); b && b->getOpcode() == BO_Add) {
    bool left = array_of(k, b->getLHS()) != nullptr;
    base = left ? b->getLHS() : b->getRHS(), index = left ? b->getRHS() : b->getLHS();
  }
  const ValueDecl *a = base ? array_of(k, base) : nullptr;
  auto offset = a ? uniform_text(k, index) : std::nullopt;
  if (!offset) return std::nullopt;
  return Address{a, "(" + a->getName().str() + " + " + *offset + ")"};
}

// Whether a function `s` calls (directly or further down) names `decl`.
bool callees_name(const Stmt *s, const ValueDecl *decl, int depth = 0) {
  bool found = false;
  walk(s, [&](const Stmt *x) {
    const auto *call = dyn_cast<CallExpr>(x);
    const FunctionDecl *fd = call ? call->getDirectCallee() : nullptr;
    if (found || !fd || !fd->hasBody()) return;
    found = depth > 8 || references(fd->getBody(), decl) > 0 || callees_name(fd->getBody(), decl, depth + 1);
  });
  return found;
}

// One address the block's updates go to, and its register.
struct Aggregate {
  std::string address;  // computed alike by every thread, anywhere in the kernel
  std::string type;     // the element type
  std::string function; // the atomic that flushes the block's total
  Combiner::Family family = Combiner::Sum;
  Register reg;
  bool floating = false;
};

struct Aggregated {
  const CallExpr *call = nullptr;
  size_t group = 0;
  bool negated = false;
};

struct Aggregable {
  IndexSpace space;
  std::vector<Aggregate> groups;
  std::vector<Aggregated> updates;
  std::set<const VarDecl *> locals; // local pointers the atomics named, unused once they are gone
};

// The global indexes of a kernel and the variables holding them, per dimension.
struct IndexNames {
  int dims = 1;
  std::vector<const VarDecl *> vars[2];
  // The dimension `e` is the index (or threadIdx) of, or -1.
  int dim_of(const Expr *e) const {
    if (auto g = as_global_index(e->IgnoreParenImpCasts())) return g->dim;
    if (auto b = as_builtin(e->IgnoreParenImpCasts()); b && b->var == Builtin::ThreadIdx) return b->dim;
    const VarDecl *v = var_of(e);
    for (int d = 0; d < dims; ++d)
      if (v && std::count(vars[d].begin(), vars[d].end(), v)) return d;
    return -1;
  }
};

// Whether the terms of `cond`'s && pin every dimension's index (or
// threadIdx) to a value the same for every thread (`i == C`): one thread of
// the grid (or of each block) runs it.
bool one_item(const Expr *cond, const KernelAst &k, const IndexNames &names) {
  std::vector<const Expr *> terms;
  split_terms(cond, BO_LAnd, terms);
  unsigned pinned = 0;
  for (const Expr *t : terms)
    if (const auto *b = dyn_cast<BinaryOperator>(t->IgnoreParenImpCasts()); b && b->getOpcode() == BO_EQ) {
      int l = names.dim_of(b->getLHS()), r = names.dim_of(b->getRHS());
      if (l >= 0 && uniform_text(k, b->getRHS())) pinned |= 1u << l;
      if (r >= 0 && uniform_text(k, b->getLHS())) pinned |= 1u << r;
    }
  return pinned == (1u << names.dims) - 1;
}

// The calls under `s` that no one_item guard keeps to one thread.
void unguarded_calls(const Stmt *s, const KernelAst &k, const IndexNames &names, std::set<const CallExpr *> &out) {
  if (!s) return;
  if (const auto *i = dyn_cast<IfStmt>(s); i && one_item(i->getCond(), k, names)) {
    unguarded_calls(i->getElse(), k, names, out);
    return;
  }
  if (const auto *c = dyn_cast<CallExpr>(s)) out.insert(c);
  for (const Stmt *c : s->children())
    unguarded_calls(c, k, names, out);
}

// Error unless one of `calls` may run in more than one thread: a guard
// pinning every dimension's index leaves nothing to combine.
Status not_all_once(const KernelAst &k, const Stmt *body, int dims, const std::vector<const CallExpr *> &calls) {
  std::set<const CallExpr *> many;
  unguarded_calls(body, k, IndexNames{dims, {index_variables(body, 0), index_variables(body, 1)}}, many);
  if (std::none_of(calls.begin(), calls.end(), [&](const CallExpr *c) { return many.count(c) > 0; }))
    return not_applicable("every atomic runs in one thread of the grid or block (a guard `i == C`)");
  return Status::ok();
}

// The atomics of a global-index kernel when every one is a statement
// updating an address that is the same for every thread, all of one family,
// and the arrays they update (and the local pointers naming them) are
// touched nowhere else, a __device__ variable not by the functions it calls
// either.
Expected<Aggregable> aggregable(const KernelAst &k) {
  auto s = index_space(k, true, true);
  if (!s) return s.error();
  Effects fx = effects_of(k.kernel());
  if (fx.atomic_calls.empty()) return not_applicable("the kernel has no atomic updates");
  std::set<const CallExpr *> statements;
  statement_calls(s->body, statements);
  Aggregable a;
  a.space = *s;
  std::map<const ValueDecl *, int> uses; // names each atomic's address adds to its array (or local pointer)
  std::set<const VarDecl *> &locals = a.locals;
  for (const CallExpr *call : fx.atomic_calls) {
    const std::string name = atomic_name(call);
    auto c = combining_statement(call, statements);
    if (!c) return c.error();
    if (!a.groups.empty() && a.groups.front().family != c->family)
      return not_applicable("the atomics combine by different operations");
    auto addr = uniform_address(k, call->getArg(0));
    if (!addr)
      return not_applicable(
          "an atomic's address is not one element of a pointer parameter or __device__ variable, the same for "
          "every thread: '" +
          k.text(call->getArg(0)->getSourceRange()) + "'");
    auto op = operand_of(k, call, *c);
    if (!op) return op.error();
    ++uses[addr->via ? static_cast<const ValueDecl *>(addr->via) : addr->array];
    if (addr->via && locals.insert(addr->via).second)
      uses[addr->array] += references(addr->via->getInit(), addr->array);
    uses.emplace(addr->array, 0);
    size_t g = 0;
    while (g < a.groups.size() && a.groups[g].address != addr->text)
      ++g;
    if (g == a.groups.size())
      a.groups.push_back(
          {addr->text, op->type, c->family == Combiner::Sum ? "atomicAdd" : name, c->family, op->reg, op->floating});
    a.updates.push_back({call, g, c->negated});
  }
  if (auto st = not_all_once(k, s->body, s->dims, fx.atomic_calls); !st) return st.error();
  for (const auto &[d, n] : uses)
    if (references(s->body, d) != n ||
        (!isa<ParmVarDecl>(d) && !locals.count(dyn_cast<VarDecl>(d)) && callees_name(k.kernel()->getBody(), d)))
      return not_applicable("the kernel reads or writes '" + d->getName().str() + "' other than by the atomics");
  return a;
}

// One atomic statement the warp form combines where it stands.
struct WarpUpdate {
  const CallExpr *call = nullptr;
  std::string function, type; // the atomic and its element type
  Combiner::Family family = Combiner::Sum;
  Register reg;
};

// How many values index `e` can take when that is a known small count: an
// 8-bit integer (256), `x & C` (C + 1) or `x % C` (C); 0 when unknown.
long index_values(const Expr *e, const ASTContext &ctx) {
  e = e->IgnoreParenImpCasts();
  if (e->getType()->isIntegerType() && ctx.getTypeSize(e->getType()) == 8) return 256;
  const auto *b = dyn_cast<BinaryOperator>(e);
  const auto *c = b ? dyn_cast<IntegerLiteral>(b->getRHS()->IgnoreParenImpCasts()) : nullptr;
  if (!c || c->getValue().getActiveBits() > 31) return 0;
  long v = static_cast<long>(c->getValue().getZExtValue());
  if (b->getOpcode() == BO_And) return v + 1;
  if (b->getOpcode() == BO_Rem) return v;
  return 0;
}

// The warp form: in a kernel without barriers, every atomic is a statement
// of a combining operation into an array of a pointer parameter that the
// kernel touches nowhere else; each is combined in place among the lanes
// that update the same address at the same time.
Expected<std::vector<WarpUpdate>> warp_updates(const KernelAst &k) {
  Effects fx = effects_of(k.kernel());
  if (fx.atomic_calls.empty()) return not_applicable("the kernel has no atomic updates");
  if (fx.barrier) return not_applicable("the kernel synchronizes threads (barriers)");
  const Stmt *body = k.kernel()->getBody();
  std::set<const CallExpr *> statements;
  statement_calls(body, statements);
  std::vector<WarpUpdate> out;
  std::map<const ParmVarDecl *, int> uses;
  long few = 0; // the most values an atomic's index takes
  for (const CallExpr *call : fx.atomic_calls) {
    const std::string name = atomic_name(call);
    auto c = combining_statement(call, statements);
    if (!c) return c.error();
    const Expr *addr = call->getArg(0)->IgnoreParenImpCasts(), *base = addr, *index = nullptr;
    if (const auto *u = dyn_cast<UnaryOperator>(addr); u && u->getOpcode() == UO_AddrOf)
      if (const auto *e = dyn_cast<ArraySubscriptExpr>(u->getSubExpr()->IgnoreParenImpCasts()))
        base = e->getBase(), index = e->getIdx();
    if (const auto *b = dyn_cast<BinaryOperator>(addr); b && b->getOpcode() == BO_Add) {
      bool left = b->getLHS()->getType()->isPointerType();
      base = left ? b->getLHS() : b->getRHS(), index = left ? b->getRHS() : b->getLHS();
    }
    long values = index ? index_values(index, k.context()) : 0;
    few = std::max(few, values == 0 ? 1L << 30 : values);
    const auto *p = dyn_cast_or_null<ParmVarDecl>(var_of(base));
    if (!p || !p->getType()->isPointerType())
      return not_applicable("an atomic does not update an element of a pointer parameter: '" +
                            k.text(call->getArg(0)->getSourceRange()) + "'");
    auto op = operand_of(k, call, *c);
    if (!op) return op.error();
    ++uses[p];
    out.push_back({call, name, op->type, c->family, op->reg});
  }
  for (const auto &[p, n] : uses)
    if (references(body, p) != n)
      return not_applicable("the kernel reads or writes '" + p->getName().str() + "' other than by the atomics");
  if (auto st = not_all_once(k, body, index_uses(body).any_in(1) ? 2 : 1, fx.atomic_calls); !st) return st.error();
  if (few <= 4096)
    return not_applicable("every atomic's index takes at most " + std::to_string(few) +
                          " values: smem_privatized_atomics keeps them all in shared memory");
  return out;
}

// The text after an atomic's value, for update `u` whose register type is
// `rt`: closes the value's cast, finds the lanes updating the same address
// (`__kbcc_p`), folds their values into the lowest lane and lets it send one
// atomic.
std::string warp_combine(const WarpUpdate &u, const std::string &rt) {
  std::string s = ");\n    const unsigned __kbcc_m = __match_any_sync(__activemask(), (unsigned long long)__kbcc_p);\n";
  s += "    " + rt + " __kbcc_s = __kbcc_v;\n";
  s += "    for (unsigned __kbcc_r = __kbcc_m & (__kbcc_m - 1u); __kbcc_r != 0u; __kbcc_r &= __kbcc_r - 1u) {\n";
  s += "      const " + rt + " __kbcc_y = __shfl_sync(__kbcc_m, __kbcc_v, __ffs(__kbcc_r) - 1);\n";
  s += "      __kbcc_s = " + combined(u.family, false, "__kbcc_s", "__kbcc_y") + ";\n    }\n";
  s += "    if (((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u) == "
       "(unsigned)(__ffs(__kbcc_m) - 1)) ";
  s += u.function + "(__kbcc_p, (" + u.type + ")__kbcc_s); }";
  return s;
}

// Each atomic statement becomes: the lanes updating the same address at the
// same time (__match_any_sync over __activemask()) send their values to the
// lowest of them, which issues one atomic with their combination.
Expected<Output> warp_apply(const KernelAst &k, const std::vector<WarpUpdate> &updates) {
  const std::string &src = k.source();
  Edits e;
  bool floating = false;
  for (const WarpUpdate &u : updates) {
    size_t b = 0, x = 0, ab = 0, ax = 0, vb = 0, vx = 0;
    if (!k.span(u.call->getSourceRange(), b, x) || !k.span(u.call->getArg(0)->getSourceRange(), ab, ax) ||
        !k.span(u.call->getArg(1)->getSourceRange(), vb, vx))
      return not_applicable("an atomic is written in a macro");
    floating = floating || u.reg.type == "float" || u.reg.type == "double";
    const std::string &rt = u.reg.type;
    std::string value = "); const " + rt;
    value += " __kbcc_v = (" + rt + ")(";
    if (rt != u.type) value += u.type + ")(";
    e.replace(b, ab, "{ auto const __kbcc_p = (");
    e.replace(ax, vb, value);
    e.replace(vx, past_semicolon(src, x), warp_combine(u, rt));
  }
  auto text = e.apply(src);
  if (!text) return text.error();
  Output out;
  out.source = *text;
  out.numerics = floating ? cache::kNumericsReassociates : cache::kNumericsExact;
  if (floating) out.reduction_length = "32";
  return out;
}

// Why neither form applies: the block form's reason, and the warp form's when it differs.
Error neither(const Error &block, const Error &warp) {
  if (block.message == warp.message) return block;
  return not_applicable(block.message + "; per warp: " + warp.message);
}

Expected<std::vector<Axis>> aggregate_space(const Input &in) {
  if (effects_of(in.ast->kernel()).atomic_calls.empty()) return not_applicable("the kernel has no atomic updates");
  auto a = aggregable(*in.ast);
  if (!a) {
    auto w = warp_updates(*in.ast);
    if (!w) return neither(a.error(), w.error());
    return std::vector<Axis>{};
  }
  if (a->space.dims == 2) return std::vector<Axis>{{"factor", {"8", "4", "16"}}, {"block", {"32x8", "32x4"}}};
  return std::vector<Axis>{{"factor", {"16", "4", "64"}}, {"block", {"256", "512"}}};
}

// The code that ends the kernel: each block combines its threads' registers
// (warp shuffles, then one shared slot per warp) and thread 0 sends each
// total to its address with one atomic; a block whose size is not a multiple
// of 32 sends every thread's register instead.
std::string flush_text(const Aggregable &a) {
  auto acc = [](size_t g) { return "__kbcc_acc" + std::to_string(g); };
  auto send = [&](size_t g) {
    const Aggregate &x = a.groups[g];
    std::string call = x.function + "(" + x.address + ", (" + x.type + ")" + acc(g) + ");";
    return x.floating ? call : "if (" + acc(g) + " != " + x.reg.identity + ") " + call;
  };
  auto shuffle = [&](const std::string &indent) {
    std::string t = indent + "for (int __kbcc_o = 16; __kbcc_o > 0; __kbcc_o >>= 1) {\n";
    for (size_t g = 0; g < a.groups.size(); ++g) {
      const Aggregate &x = a.groups[g];
      t += indent + "  { const " + x.reg.type + " __kbcc_y = __shfl_xor_sync(0xffffffffu, " + acc(g) + ", __kbcc_o); " +
           acc(g) + " = " + combined(x.family, false, acc(g), "__kbcc_y") + "; }\n";
    }
    return t + indent + "}\n";
  };
  std::string t = "  {\n  const unsigned __kbcc_nt = blockDim.x * blockDim.y * blockDim.z;\n"
                  "  const unsigned __kbcc_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n";
  for (size_t g = 0; g < a.groups.size(); ++g)
    t += "  __shared__ " + a.groups[g].reg.type + " __kbcc_part" + std::to_string(g) + "[32];\n";
  t += "  if (__kbcc_nt % 32u == 0u) {\n" + shuffle("    ") + "    if (__kbcc_t % 32u == 0u) {\n";
  for (size_t g = 0; g < a.groups.size(); ++g)
    t += "      __kbcc_part" + std::to_string(g) + "[__kbcc_t / 32u] = " + acc(g) + ";\n";
  t += "    }\n    __syncthreads();\n    if (__kbcc_t < 32u) {\n";
  for (size_t g = 0; g < a.groups.size(); ++g)
    t += "      " + acc(g) + " = __kbcc_t < __kbcc_nt / 32u ? __kbcc_part" + std::to_string(g) +
         "[__kbcc_t] : " + a.groups[g].reg.identity + ";\n";
  t += shuffle("      ") + "      if (__kbcc_t == 0u) {\n";
  for (size_t g = 0; g < a.groups.size(); ++g)
    t += "        " + send(g) + "\n";
  t += "      }\n    }\n  } else {\n";
  for (size_t g = 0; g < a.groups.size(); ++g)
    t += "    " + send(g) + "\n";
  return t + "  }\n  }\n";
}

Expected<Output> aggregate_apply(const Input &in, const Params &params) {
  const KernelAst &k = *in.ast;
  auto a = aggregable(k);
  if (!a) {
    auto w = warp_updates(k);
    if (!w) return neither(a.error(), w.error());
    return warp_apply(k, *w);
  }
  const IndexSpace &s = a->space;
  long factor = int_param(params, "factor", s.dims == 2 ? 8 : 16);
  if (factor < 1 || factor > 256) return not_applicable("factor out of range");
  const std::string &src = k.source();
  size_t open = k.offset(s.body->getLBracLoc()), close = k.offset(s.body->getRBracLoc());
  if (open == std::string::npos || close == std::string::npos) return not_applicable("the body is written in a macro");
  Edits e;
  std::string registers;
  for (size_t g = 0; g < a->groups.size(); ++g)
    registers +=
        "\n  " + a->groups[g].reg.type + " __kbcc_acc" + std::to_string(g) + " = " + a->groups[g].reg.identity + ";";
  e.insert(open + 1, registers);
  Output out;
  if (s.dims == 2) {
    auto [bx, by] = shape_param(params, "block", "32x8");
    if (bx < 32 || by < 1 || bx * by > 1024 || bx % 32 != 0) return not_applicable("block is not a valid 2-D shape");
    if (auto st = coarsen_rows(k, s, factor, e); !st) return st.error();
    out.launch = tile_mapping(s, bx, by * factor, bx, by);
  } else {
    long block = int_param(params, "block", 256);
    if (!valid_block(block)) return not_applicable("block out of range");
    if (auto st = coarsen_body(k, s, factor, e); !st) return st.error();
    out.launch = coarse_mapping(s, block, factor);
  }
  e.insert(close, flush_text(*a));
  for (const VarDecl *v : a->locals) {
    size_t at = k.offset(v->getBeginLoc());
    if (at == std::string::npos) return not_applicable("a local pointer is declared in a macro");
    e.insert(at, "__attribute__((unused)) ");
  }
  bool floating = false;
  for (const Aggregated &u : a->updates) {
    const Aggregate &g = a->groups[u.group];
    floating = floating || g.floating;
    size_t b = 0, x = 0, vb = 0, vx = 0;
    if (!k.span(u.call->getSourceRange(), b, x) || !k.span(u.call->getArg(1)->getSourceRange(), vb, vx))
      return not_applicable("an atomic is written in a macro");
    std::string acc = "__kbcc_acc" + std::to_string(u.group);
    std::string cast = g.reg.type == g.type ? "(" + g.type + ")(" : "(" + g.reg.type + ")(" + g.type + ")(";
    e.replace(b, vb, "{ const " + g.reg.type + " __kbcc_v = " + cast);
    e.replace(vx, past_semicolon(src, x), "); " + acc + " = " + combined(g.family, u.negated, acc, "__kbcc_v") + "; }");
  }
  auto text = e.apply(src);
  if (!text) return text.error();
  out.source = *text;
  out.numerics = floating ? cache::kNumericsReassociates : cache::kNumericsExact;
  if (floating) {
    std::vector<std::string> n;
    for (int d = 0; d < s.dims; ++d)
      if (!s.bounds[d].empty()) n.push_back(s.bounds[d].front());
    out.reduction_length = n.size() == 2 ? "(" + n[0] + ") * (" + n[1] + ")" : n.empty() ? "" : n[0];
  }
  out.size_params.assign(s.bound_params.begin(), s.bound_params.end());
  return out;
}

} // namespace

Transform coarsen_transform() {
  return {"thread_coarsening",
          cache::kNumericsExact,
          "each thread handles `factor` items (block-strided), the grid shrinks by the factor; optional block size; "
          "a kernel that synchronizes or uses shared memory keeps its grid, each thread running FX x FY threads of "
          "its block across its barriers (`factor` FX or FXxFY: block.x / FX, block.y / FY; `order` lockstep or "
          "serial)",
          true,
          coarsen_space,
          coarsen_apply};
}

Transform privatize_transform() {
  return {"smem_privatized_atomics",
          cache::kNumericsExact,
          "atomicAdd updates of one array go to a per-block shared-memory copy, flushed once per block; threads "
          "coarsened by `factor`",
          true,
          privatize_space,
          privatize_apply};
}

Transform aggregate_transform() {
  return {"warp_aggregated_atomics",
          cache::kNumericsExact,
          "atomics to an address that is the same for every thread accumulate in registers; each block combines "
          "them with warp shuffles and sends one atomic per address; threads coarsened by `factor`",
          true,
          aggregate_space,
          aggregate_apply};
}

} // namespace kbcc::transform
