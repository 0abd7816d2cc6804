#include "transform/uniform.h"

#include "transform/analysis.h"
#include "transform/edits.h"
#include "transform/transform.h"

#include "clang/AST/ExprCXX.h"

#include <algorithm>

namespace kbcc::transform {
using namespace clang;

std::string type_text(QualType t, const ASTContext &ctx) {
  return t.getCanonicalType().getUnqualifiedType().getAsString(PrintingPolicy(ctx.getLangOpts()));
}

std::string vector_of(QualType element) {
  const auto *b = element.getCanonicalType()->getAs<BuiltinType>();
  if (!b) return "";
  switch (b->getKind()) {
  case BuiltinType::Float:
    return "float4";
  case BuiltinType::Int:
    return "int4";
  case BuiltinType::UInt:
    return "uint4";
  default:
    return "";
  }
}

std::string unpack4(const std::string &vec, const std::string &from, const std::string &to, int slot) {
  std::string out = "{ const " + vec + " __kbcc_x = " + from + ";";
  for (int i = 0; i < 4; ++i)
    out += " " + to + "[" + std::to_string(slot + i) + "] = __kbcc_x." + "xyzw"[i] + ";";
  return out + " }";
}

std::optional<PlainStore> plain_store(const Stmt *s, const ASTContext &ctx) {
  const auto *as = dyn_cast_or_null<BinaryOperator>(s);
  if (!as || as->getOpcode() != BO_Assign) return std::nullopt;
  const auto *lhs = dyn_cast<ArraySubscriptExpr>(as->getLHS()->IgnoreParens());
  const auto *base = lhs ? dyn_cast<DeclRefExpr>(lhs->getBase()->IgnoreParenImpCasts()) : nullptr;
  const auto *p = base ? dyn_cast<ParmVarDecl>(base->getDecl()) : nullptr;
  if (!p) return std::nullopt;
  PlainStore out{p, lhs->getIdx(), as->getRHS(), lhs->getType().getUnqualifiedType()};
  if (!out.element->isBuiltinType() || !out.element->isArithmeticType() || out.element->isBooleanType())
    return std::nullopt;
  bool memory = false;
  for (const Expr *e : {out.index, out.value}) {
    memory = memory || e->HasSideEffects(ctx);
    walk(e, [&](const Stmt *st) {
      const auto *ref = dyn_cast<DeclRefExpr>(st);
      const auto *var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      const auto *un = dyn_cast<UnaryOperator>(st);
      memory = memory || isa<ArraySubscriptExpr>(st) || isa<MemberExpr>(st) || isa<CallExpr>(st) ||
               (un && un->getOpcode() == UO_Deref) || (var && var->hasGlobalStorage());
    });
  }
  if (memory) return std::nullopt;
  return out;
}

std::string store_vector(long bytes) {
  return bytes == 16 ? "uint4" : bytes == 8 ? "uint2" : bytes == 4 ? "unsigned int" : "";
}

// The text of [b, x) of the definition with the (disjoint) replacements inside it.
std::string spliced(const std::string &src, size_t b, size_t x, const std::vector<Repl> &repls) {
  Edits e;
  for (const Repl &r : repls)
    if (r.begin >= b && r.end <= x) e.replace(r.begin - b, r.end - b, r.text);
  auto text = e.apply(src.substr(b, x - b));
  return text ? *text : "\n#error kbcc: " + text.error().message + "\n"; // fails the candidate's compile
}

// Replacements sorted by position (an insertion before a replacement at
// the same place), dropping those inside an earlier one.
std::vector<Repl> disjoint(std::vector<Repl> repls) {
  std::stable_sort(repls.begin(), repls.end(), [](const Repl &a, const Repl &b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if ((a.begin == a.end) != (b.begin == b.end)) return a.begin == a.end;
    return a.end > b.end;
  });
  std::vector<Repl> out;
  for (Repl &r : repls)
    if (out.empty() || r.begin >= out.back().end) out.push_back(std::move(r));
  return out;
}

// Offsets of `s` in the definition, also when it is a whole macro expansion
// (`R` of `#define R 3`) or begins or ends with one (`i < N`): then the text
// has the macro's invocation.
bool span_of(const KernelAst &k, const Stmt *s, size_t &b, size_t &x) {
  return k.span(s->getSourceRange(), b, x) || k.file_span(s->getSourceRange(), b, x);
}

// Text of `e` computed the same by every thread: parameters, literals and
// locals whose one value (value_of) is such text (inlined), with `subst` applied.
// nullopt otherwise.
std::optional<std::string> uniform_text(const KernelAst &k, const Expr *e, const Subst &subst, int depth) {
  size_t b = 0, x = 0;
  if (depth > 8 || !span_of(k, e, b, x)) return std::nullopt;
  std::vector<Repl> repls;
  bool ok = true;
  std::function<void(const Stmt *)> visit = [&](const Stmt *s) {
    if (!s || !ok) return;
    const auto *ex = dyn_cast<Expr>(s);
    size_t rb = 0, rx = 0;
    if (auto text = ex && subst.expr ? subst.expr(ex) : std::nullopt) {
      ok = span_of(k, ex, rb, rx);
      repls.push_back({rb, rx, *text});
      return;
    }
    if (isa<CallExpr>(s) || isa<LambdaExpr>(s) || (ex && as_builtin(ex)) ||
        (isa<UnaryOperator>(s) && cast<UnaryOperator>(s)->isIncrementDecrementOp()) ||
        (isa<BinaryOperator>(s) && cast<BinaryOperator>(s)->isAssignmentOp()) ||
        (isa<UnaryOperator>(s) && cast<UnaryOperator>(s)->getOpcode() == UO_Deref) || isa<ArraySubscriptExpr>(s) ||
        (isa<MemberExpr>(s) && cast<MemberExpr>(s)->isArrow())) {
      ok = false;
      return;
    }
    const auto *ref = dyn_cast<DeclRefExpr>(s);
    const auto *v = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!v) { // not a variable: enumerators, literals, operators
      for (const Stmt *c : s->children())
        visit(c);
      return;
    }
    if (isa<ParmVarDecl>(v) && !subst.vars.count(v) && !v->getType()->isPointerType() &&
        !v->getType()->isReferenceType() && !assigns(k.kernel()->getBody(), v))
      return;                                     // kept as written
    if (!k.span(ref->getSourceRange(), rb, rx)) { // replaced: must be written out
      ok = false;
      return;
    }
    if (auto it = subst.vars.find(v); it != subst.vars.end()) {
      repls.push_back({rb, rx, it->second});
      return;
    }
    const Expr *value = v->hasLocalStorage() && v->getType()->isScalarType() && !v->getType().isVolatileQualified()
                            ? value_of(v)
                            : nullptr;
    if (!value) {
      ok = false;
      return;
    }
    auto init = uniform_text(k, value, subst, depth + 1);
    ok = init.has_value();
    if (ok) repls.push_back({rb, rx, "((" + type_text(v->getType(), k.context()) + ")(" + *init + "))"});
  };
  visit(e);
  if (!ok) return std::nullopt;
  return "(" + spliced(k.source(), b, x, disjoint(repls)) + ")";
}

bool PerItemLocals::per_item(const VarDecl *v) const {
  return std::find(values.begin(), values.end(), v) != values.end();
}

Expected<PerItemLocals> per_item_locals(const Stmt *body, const std::vector<const Stmt *> &before,
                                        const std::string &where) {
  PerItemLocals out;
  for (const Stmt *st : before) {
    const auto *d = dyn_cast<DeclStmt>(st);
    if (!d) continue;
    for (const Decl *decl : d->decls()) {
      const auto *v = dyn_cast<VarDecl>(decl);
      if (!v) return not_applicable("a declaration " + where + " is not a variable");
      if (!v->getType()->isScalarType() || v->getType().isVolatileQualified() || v->isStaticLocal())
        return not_applicable("local '" + v->getName().str() + "' " + where + " is not a plain scalar");
      if (v->getInit() && v->getInitStyle() != VarDecl::CInit)
        return not_applicable("local '" + v->getName().str() + "' is not initialized with '='");
      (loop_counter(body, v) ? out.counters : out.values).push_back(v);
    }
  }
  return out;
}

std::string item_declarations(const KernelAst &k, const PerItemLocals &locals, long items) {
  std::string out;
  for (const VarDecl *v : locals.values)
    out +=
        "  " + type_text(v->getType(), k.context()) + " " + v->getName().str() + "[" + std::to_string(items) + "];\n";
  for (const VarDecl *v : locals.counters)
    out += "  __attribute__((unused)) " + type_text(v->getType(), k.context()) + " " + v->getName().str() + ";\n";
  return out;
}

bool only_read(const KernelAst &k, const ParmVarDecl *array) {
  int uses = references(k.kernel()->getBody(), array), reads = 0;
  walk(k.kernel()->getBody(), [&](const Stmt *s) {
    const auto *c = dyn_cast<ImplicitCastExpr>(s);
    if (!c || c->getCastKind() != CK_LValueToRValue) return;
    const auto *sub = dyn_cast<ArraySubscriptExpr>(c->getSubExpr()->IgnoreParens());
    if (sub && var_of(sub->getBase()) == array) ++reads;
  });
  return uses == reads;
}

} // namespace kbcc::transform
