// smem_padding: a __shared__ array of two or more dimensions whose rows are
// an even number of 4-byte banks wide, read or written down a column by the
// lanes of a warp (a subscript other than the last varies with threadIdx.x),
// puts several lanes on one bank: the access is replayed once per lane that
// shares it. Each row gains padding so that its width in banks is odd, and
// a warp's column access falls into distinct banks: one element for 4-, 8-
// and 16-byte elements, 4 / size elements for 1- and 2-byte ones.
//
// Legal when the kernel uses each padded array only through its elements:
// every reference is the base of a subscript per dimension (`a[i][j]`),
// whose address is not taken nor bound to a reference. No row is then
// reached from another row's element, and the padding cells are never read
// or written, so the kernel computes the same values in the same order
// (numerics exact). The static shared memory of the kernel must stay within
// 48 KiB. The launch is unchanged.
#include "cache/variant.h"
#include "transform/analysis.h"
#include "transform/edits.h"
#include "transform/transform.h"

#include "clang/AST/Attr.h"
#include "clang/AST/TypeLoc.h"

#include <algorithm>

namespace kbcc::transform {
using namespace clang;

namespace {

constexpr uint64_t kStaticSharedLimit = uint64_t{48} * 1024;

// A __shared__ array of the kernel's body and the rows it would pad.
struct Array {
  const VarDecl *var = nullptr;
  unsigned dims = 0;
  uint64_t row = 0;   // elements in the last dimension
  uint64_t bytes = 0; // size of one element
  uint64_t rows = 0;  // product of the other dimensions
  uint64_t pad = 0;   // elements added to each row
  ArrayTypeLoc last;  // the last dimension as written
};

// The array that `v`, a non-extern __shared__ local, declares when it has
// two or more constant dimensions; nullopt otherwise.
std::optional<Array> shared_array_of(const VarDecl *v, const ASTContext &ctx) {
  if (!v->getTypeSourceInfo()) return std::nullopt;
  Array a;
  a.var = v;
  a.rows = 1;
  QualType t = v->getType();
  TypeLoc loc = v->getTypeSourceInfo()->getTypeLoc();
  while (const auto *c = ctx.getAsConstantArrayType(t)) {
    auto at = loc.getUnqualifiedLoc().getAs<ArrayTypeLoc>();
    if (!at) return std::nullopt;
    a.rows *= a.dims ? a.row : 1;
    a.row = c->getSize().getZExtValue();
    a.last = at;
    ++a.dims;
    t = c->getElementType();
    loc = at.getElementLoc();
  }
  if (a.dims < 2 || t->isIncompleteType() || t->isDependentType()) return std::nullopt;
  a.bytes = static_cast<uint64_t>(ctx.getTypeSizeInChars(t).getQuantity());
  return a;
}

// Whether `e` reads threadIdx.x: directly, or through a local whose
// initializer or an assignment in `body` does (followed `depth` levels).
bool lane_varying(const Expr *e, const Stmt *body, int depth = 0) {
  if (!e || depth > 6) return false;
  bool varies = false;
  walk(e, [&](const Stmt *s) {
    if (varies) return;
    if (auto b = as_builtin(dyn_cast<Expr>(s))) varies = b->var == kbcc::transform::Builtin::ThreadIdx && b->dim == 0;
    const auto *r = dyn_cast<DeclRefExpr>(s);
    const auto *v = r ? dyn_cast<VarDecl>(r->getDecl()) : nullptr;
    if (!v || !v->hasLocalStorage() || isa<ParmVarDecl>(v)) return;
    if (lane_varying(v->getInit(), body, depth + 1)) varies = true;
    walk(body, [&](const Stmt *w) {
      const auto *b = dyn_cast<BinaryOperator>(w);
      if (!varies && b && b->isAssignmentOp() && names(b->getLHS(), v) && lane_varying(b->getRHS(), body, depth + 1))
        varies = true;
    });
  });
  return varies;
}

// The subscripts of `e` when it is a full element a[i]...[k] of `a`,
// outermost last; empty otherwise.
std::vector<const Expr *> element_subscripts(const Expr *e, const Array &a) {
  std::vector<const Expr *> subs;
  const Expr *at = e->IgnoreParens();
  while (const auto *s = dyn_cast<ArraySubscriptExpr>(at)) {
    subs.push_back(s->getIdx());
    at = s->getBase()->IgnoreParenImpCasts();
  }
  if (subs.size() != a.dims || !names(at, a.var)) return {};
  std::reverse(subs.begin(), subs.end());
  return subs;
}

// Whether `s` binds an element of `a` to a reference (a reference local's
// initializer, or a call's argument for a reference parameter or to a
// function kbcc cannot see), through which code could reach another row.
bool binds_element(const Stmt *s, const Array &a) {
  if (const auto *d = dyn_cast<DeclStmt>(s))
    for (const Decl *decl : d->decls())
      if (const auto *v = dyn_cast<VarDecl>(decl); v && v->getType()->isReferenceType() && v->getInit())
        if (!element_subscripts(v->getInit()->IgnoreImpCasts(), a).empty()) return true;
  const auto *call = dyn_cast<CallExpr>(s);
  const FunctionDecl *fn = call ? call->getDirectCallee() : nullptr;
  for (unsigned i = 0; call && i < call->getNumArgs(); ++i)
    if ((!fn || (i < fn->getNumParams() && fn->getParamDecl(i)->getType()->isReferenceType())) &&
        !element_subscripts(call->getArg(i)->IgnoreImpCasts(), a).empty())
      return true;
  return false;
}

// Why array `a` cannot be padded ("" when it can): a use other than its
// elements. Sets `columns` when a warp's lanes access it down a column.
std::string uses_of(const Array &a, const Stmt *body, bool &columns) {
  int elements = 0;
  bool address = false;
  walk(body, [&](const Stmt *s) {
    if (const auto *u = dyn_cast<UnaryOperator>(s); u && u->getOpcode() == UO_AddrOf)
      if (!element_subscripts(u->getSubExpr(), a).empty()) address = true;
    address = address || binds_element(s, a);
    const auto *e = dyn_cast<ArraySubscriptExpr>(s);
    if (!e || e->getType()->isArrayType()) return;
    auto subs = element_subscripts(e, a);
    if (subs.empty()) return;
    ++elements;
    for (size_t d = 0; d + 1 < subs.size(); ++d)
      if (lane_varying(subs[d], body)) columns = true;
  });
  std::string name = a.var->getNameAsString(), element = name;
  for (unsigned d = 0; d < a.dims; ++d)
    element += std::string("[") + "ijkl"[std::min(d, 3u)] + "]";
  name.insert(name.begin(), '\'');
  name.push_back('\'');
  if (address) return "the address of an element of " + name + " is taken, or the element bound to a reference";
  if (elements != references(body, a.var)) return name + " is used other than as its elements " + element;
  return "";
}

// Elements added to each row of `a`, whose elements are 1, 2, 4, 8 or 16
// bytes, so that a row is an odd number of banks wide; 0 when it already is.
uint64_t padding_of(const Array &a) {
  if (a.bytes >= 4) return a.row % 2 == 0 ? 1 : 0;
  bool whole_banks = a.row * a.bytes % 4 == 0;
  return whole_banks && (a.row * a.bytes / 4) % 2 == 0 ? 4 / a.bytes : 0;
}

// Why array `a` of kernel body `body` is not padded ("" when it is), with
// its padding set.
std::string refusal_of(Array &a, const Stmt *body) {
  bool columns = false;
  std::string refusal = uses_of(a, body, columns);
  std::string name = a.var->getNameAsString();
  if (!refusal.empty()) return refusal;
  if (!columns)
    return "no access of '" + name + "' runs down a column: no subscript but the last varies with threadIdx.x";
  if (a.bytes == 0 || a.bytes > 16 || (a.bytes & (a.bytes - 1)) != 0)
    return "the elements of '" + name + "' are " + std::to_string(a.bytes) + " bytes, not 1, 2, 4, 8 or 16";
  a.pad = padding_of(a);
  if (a.pad == 0) return "a row of '" + name + "' is an odd number of 4-byte banks wide already";
  return "";
}

// The kernel's arrays to pad, each with its padding. Error "not-applicable"
// naming why none is, or when the padding would not fit.
Expected<std::vector<Array>> analyze(const KernelAst &k) {
  const Stmt *body = k.kernel()->getBody();
  const ASTContext &ctx = k.context();
  std::vector<Array> out;
  std::string why;
  uint64_t bytes = 0;
  walk(body, [&](const Stmt *s) {
    const auto *d = dyn_cast<DeclStmt>(s);
    if (!d) return;
    for (const Decl *decl : d->decls()) {
      const auto *v = dyn_cast<VarDecl>(decl);
      if (!v || !v->hasAttr<CUDASharedAttr>() || v->hasExternalStorage() || v->getType()->isDependentType()) continue;
      bytes += static_cast<uint64_t>(ctx.getTypeSizeInChars(v->getType()).getQuantity());
      auto a = shared_array_of(v, ctx);
      if (!a) continue;
      std::string refusal = refusal_of(*a, body);
      if (refusal.empty()) {
        bytes += a->rows * a->pad * a->bytes;
        out.push_back(*a);
      } else {
        why += (why.empty() ? "" : "; ") + refusal;
      }
    }
  });
  if (out.empty())
    return not_applicable(why.empty() ? "the kernel declares no __shared__ array of two or more constant dimensions"
                                      : why);
  if (bytes > kStaticSharedLimit)
    return not_applicable("padding would take the kernel's static shared memory to " + std::to_string(bytes) +
                          " bytes, past 48 KiB");
  return out;
}

Expected<std::vector<Axis>> space(const Input &in) {
  auto arrays = analyze(*in.ast);
  if (!arrays) return arrays.error();
  return std::vector<Axis>{};
}

Expected<Output> apply(const Input &in, const Params &) {
  const KernelAst &k = *in.ast;
  auto arrays = analyze(k);
  if (!arrays) return arrays.error();
  Edits e;
  for (const Array &a : *arrays) {
    size_t b = 0, x = 0, sb = 0, sx = 0;
    if (!k.span(a.last.getBracketsRange(), b, x) || !a.last.getSizeExpr() ||
        !k.file_span(a.last.getSizeExpr()->getSourceRange(), sb, sx))
      return not_applicable("the extent of '" + a.var->getNameAsString() + "' is written in a macro");
    e.replace(b, x, "[(" + k.source().substr(sb, sx - sb) + ") + " + std::to_string(a.pad) + "]");
  }
  auto text = e.apply(k.source());
  if (!text) return text.error();
  Output out;
  out.source = *text;
  out.numerics = cache::kNumericsExact;
  return out;
}

} // namespace

Transform padding_transform() {
  return {"smem_padding",
          cache::kNumericsExact,
          "a __shared__ array that a warp reads or writes down a column, its rows an even number of banks wide, "
          "gets padding per row so the column falls into distinct banks; only when every use is an element",
          true,
          space,
          apply};
}

} // namespace kbcc::transform
