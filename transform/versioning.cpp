// value_versioning (strength_reduction_index_math): a kernel whose integer
// parameters take one value on every captured launch gets a second version
// of its body in which those parameters are constants, under a guard that
// compares them with the values:
//
//   if (k == 5 && w == 2048) { const int k = 5; const int w = 2048; BODY }
//   else { BODY }
//
// The constants shadow the parameters, so every use in BODY, macros
// included, reads the value, and nvcc can unroll loops whose trip counts
// become known and turn divisions by the values into multiplications and
// shifts. Launches with other values run the body as written. The guard is
// the same for every thread of the grid, so barriers stay uniform.
//
// Legality: a specialized parameter is an integer passed by value that the
// kernel only reads (never assigned, incremented, or bound to a reference
// or pointer). The body has no labels (each would be defined twice) and no
// preprocessor directives other than #pragma. Static __shared__ arrays are
// declared once, before the guard, which requires them at the body's top
// level and not sized by a local declared before them. A body that already
// declares a local named after a parameter is refused (it may be versioned).
#include "cache/variant.h"
#include "transform/analysis.h"
#include "transform/edits.h"
#include "transform/transform.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"

#include <algorithm>
#include <set>

namespace kbcc::transform {
using namespace clang;

namespace {

struct Specialized {
  const ParmVarDecl *param = nullptr;
  int64_t value = 0;
};

struct Plan {
  std::vector<Specialized> loops;       // bound a loop's trip count or divide
  std::vector<Specialized> all;         // every parameter with one captured value
  std::vector<const DeclStmt *> shared; // top-level __shared__ declarations, hoisted
};

// The one value `name` has on every capture of `in`; nullopt when a capture
// lacks it or two differ.
std::optional<int64_t> one_value(const Input &in, const std::string &name) {
  std::optional<int64_t> v;
  for (const auto &args : in.arguments) {
    auto it = args.find(name);
    if (it == args.end() || (v && *v != it->second)) return std::nullopt;
    v = it->second;
  }
  return v;
}

// Adds to `names` the integer parameters `e` is built from: literals,
// integer parameters, locals holding such values (value_of, `depth` levels
// deep), and arithmetic, casts and conditionals over them. False when `e`
// reads anything else (a builtin, memory, a call, a local set elsewhere).
bool parameter_names(const Expr *e, std::set<std::string> &names, int depth = 0) {
  e = e ? e->IgnoreParenCasts() : nullptr;
  if (!e || depth > 8) return false;
  if (isa<IntegerLiteral>(e) || isa<CXXBoolLiteralExpr>(e)) return true;
  if (const auto *ref = dyn_cast<DeclRefExpr>(e)) {
    if (const auto *p = dyn_cast<ParmVarDecl>(ref->getDecl()))
      return p->getType()->isIntegerType() && (names.insert(p->getNameAsString()), true);
    const auto *v = dyn_cast<VarDecl>(ref->getDecl());
    return v && v->getType()->isIntegerType() && parameter_names(value_of(v), names, depth + 1);
  }
  if (const auto *u = dyn_cast<UnaryOperator>(e))
    return !u->isIncrementDecrementOp() && u->getOpcode() != UO_AddrOf && u->getOpcode() != UO_Deref &&
           parameter_names(u->getSubExpr(), names, depth);
  if (const auto *b = dyn_cast<BinaryOperator>(e))
    return !b->isAssignmentOp() && !b->isCompoundAssignmentOp() && b->getOpcode() != BO_Comma &&
           parameter_names(b->getLHS(), names, depth) && parameter_names(b->getRHS(), names, depth);
  if (const auto *c = dyn_cast<ConditionalOperator>(e))
    return parameter_names(c->getCond(), names, depth) && parameter_names(c->getTrueExpr(), names, depth) &&
           parameter_names(c->getFalseExpr(), names, depth);
  return false;
}

// Names of parameters whose values would make a loop's trip count known
// (`for (dy = -k / 2; dy <= k / 2; ++dy)`) or a division's divisor
// (`i / w`, `i % c`, `x /= n`).
std::set<std::string> loop_and_divisor_params(const Stmt *body) {
  std::set<std::string> out;
  auto add = [&](std::initializer_list<const Expr *> exprs) {
    std::set<std::string> names;
    for (const Expr *e : exprs)
      if (!parameter_names(e, names)) return;
    out.insert(names.begin(), names.end());
  };
  walk(body, [&](const Stmt *s) {
    if (const auto *f = dyn_cast<ForStmt>(s))
      if (auto c = counted_loop(f, true)) add({c->init, c->bound});
    if (const auto *b = dyn_cast<BinaryOperator>(s)) {
      BinaryOperatorKind op = b->getOpcode();
      bool divides = op == BO_Div || op == BO_Rem || op == BO_DivAssign || op == BO_RemAssign;
      if (divides && b->getType()->isIntegerType()) add({b->getRHS()});
    }
  });
  return out;
}

// Whether `text` holds a preprocessor directive other than #pragma: the body is
// written twice, and a directive may not mean the same the second time.
bool has_directive(const std::string &text) {
  for (size_t at = 0; at < text.size();) {
    size_t first = text.find_first_not_of(" \t", at);
    if (first != std::string::npos && text[first] == '#' && text.compare(first, 7, "#pragma") != 0) return true;
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return false;
}

// Whether `d` declares a __shared__ variable.
bool declares_shared(const DeclStmt *d) {
  return std::any_of(d->decl_begin(), d->decl_end(), [](const Decl *x) {
    const auto *v = dyn_cast<VarDecl>(x);
    return v && v->hasAttr<CUDASharedAttr>();
  });
}

// The top-level __shared__ declarations of `body`, hoisted before the
// guard. Errors: one in a nested block, or sized by an earlier local.
Expected<std::vector<const DeclStmt *>> hoisted_shared(const KernelAst &k, const CompoundStmt *body) {
  std::vector<const DeclStmt *> out;
  std::set<std::string> locals;
  for (const Stmt *s : body->body()) {
    const auto *d = dyn_cast<DeclStmt>(s);
    if (d && declares_shared(d)) {
      std::string text = k.text(d->getSourceRange());
      if (text.empty()) return not_applicable("a __shared__ declaration is written in a macro");
      std::set<std::string> used;
      identifiers(text, used);
      if (std::any_of(used.begin(), used.end(), [&](const std::string &n) { return locals.count(n); }))
        return not_applicable("a __shared__ declaration depends on a local declared before it, so it cannot be "
                              "declared once for both versions");
      out.push_back(d);
      continue;
    }
    bool nested = false;
    walk(s, [&](const Stmt *x) {
      if (const auto *n = dyn_cast<DeclStmt>(x); n && declares_shared(n)) nested = true;
    });
    if (nested)
      return not_applicable("a __shared__ array is declared in a nested block; two versions of the body would "
                            "declare it twice");
    if (d)
      for (const Decl *x : d->decls())
        if (const auto *v = dyn_cast<NamedDecl>(x)) locals.insert(v->getNameAsString());
  }
  return out;
}

// Whether `body` only reads the value of `p`: every reference to it is
// converted to its value at once (no assignment, increment, address, or
// binding to a reference).
bool only_read(const Stmt *body, const ParmVarDecl *p) {
  int read = 0;
  walk(body, [&](const Stmt *s) {
    const auto *cast = dyn_cast<ImplicitCastExpr>(s);
    const auto *ref = cast && cast->getCastKind() == CK_LValueToRValue
                          ? dyn_cast<DeclRefExpr>(cast->getSubExpr()->IgnoreParens())
                          : nullptr;
    if (ref && ref->getDecl() == p) ++read;
  });
  return read == references(body, p);
}

// Whether `body` declares a local named like one of `fd`'s parameters.
bool shadows_parameter(const FunctionDecl *fd, const Stmt *body) {
  std::set<std::string> params;
  for (const ParmVarDecl *p : fd->parameters())
    params.insert(p->getNameAsString());
  bool found = false;
  walk(body, [&](const Stmt *s) {
    if (const auto *d = dyn_cast<DeclStmt>(s))
      for (const Decl *x : d->decls())
        if (const auto *v = dyn_cast<VarDecl>(x); v && params.count(v->getNameAsString())) found = true;
  });
  return found;
}

Expected<Plan> analyze(const Input &in) {
  const KernelAst &k = *in.ast;
  const auto *body = dyn_cast_or_null<CompoundStmt>(k.kernel()->getBody());
  if (!body) return not_applicable("the kernel has no body");
  if (in.arguments.empty()) return not_applicable("no captured launch gives the integer parameters' values");
  bool labels = false;
  walk(body, [&](const Stmt *s) { labels = labels || isa<LabelStmt>(s); });
  if (labels) return not_applicable("the kernel has labels, which two versions of its body would define twice");
  size_t open = k.offset(body->getLBracLoc()), close = k.offset(body->getRBracLoc());
  if (open == std::string::npos || close == std::string::npos)
    return not_applicable("the kernel's body is written in a macro");
  if (has_directive(k.source().substr(open, close - open)))
    return not_applicable("the kernel's body holds a preprocessor directive, which two versions would repeat");
  if (shadows_parameter(k.kernel(), body))
    return not_applicable("a local of the kernel is named like a parameter (a body already versioned on its "
                          "parameters' values)");
  Plan plan;
  std::set<std::string> useful = loop_and_divisor_params(body);
  for (const ParmVarDecl *p : k.kernel()->parameters()) {
    QualType t = p->getType();
    if (p->getName().empty() || !t->isIntegerType() || t->isEnumeralType() || t.isVolatileQualified() ||
        references(body, p) == 0 || !only_read(body, p))
      continue;
    auto v = one_value(in, p->getNameAsString());
    if (!v) continue;
    plan.all.push_back({p, *v});
    if (useful.count(p->getNameAsString())) plan.loops.push_back({p, *v});
  }
  if (plan.loops.empty())
    return not_applicable("no integer parameter that bounds a counted loop or divides takes one value on every "
                          "captured launch (and is only read)");
  auto shared = hoisted_shared(k, body);
  if (!shared) return shared.error();
  plan.shared = std::move(*shared);
  return plan;
}

// `v` as a literal of parameter type `t`.
std::string literal(int64_t v, QualType t) {
  if (v >= INT32_MIN && v <= INT32_MAX && (v >= 0 || t->isSignedIntegerType())) return std::to_string(v);
  if (t->isSignedIntegerType()) return std::to_string(v) + "ll";
  return std::to_string(static_cast<uint64_t>(v)) + "ull";
}

Expected<std::vector<Axis>> space(const Input &in) {
  auto plan = analyze(in);
  if (!plan) return plan.error();
  std::vector<std::string> values{"loops"};
  if (plan->all.size() > plan->loops.size()) values.push_back("all");
  return std::vector<Axis>{{"params", values}};
}

Expected<Output> apply(const Input &in, const Params &params) {
  auto plan = analyze(in);
  if (!plan) return plan.error();
  auto which = params.count("params") ? params.at("params") : "loops";
  if (which != "loops" && which != "all") return not_applicable("params must be loops or all, not '" + which + "'");
  const std::vector<Specialized> &chosen = which == "all" ? plan->all : plan->loops;
  const KernelAst &k = *in.ast;
  const auto *body = cast<CompoundStmt>(k.kernel()->getBody());
  size_t open = k.offset(body->getLBracLoc()) + 1, close = k.offset(body->getRBracLoc());
  const PrintingPolicy policy = k.context().getPrintingPolicy();

  Edits hoist; // the body without its __shared__ declarations
  std::string shared;
  for (const DeclStmt *d : plan->shared) {
    size_t b = 0, e = 0; // `__shared__` is a macro: its invocation starts the statement
    bool written = k.file_span(d->getSourceRange(), b, e);
    e = statement_end(k, d);
    if (!written || e == std::string::npos || b < open || e > close)
      return not_applicable("a __shared__ declaration is written in a macro");
    shared += "  " + k.source().substr(b, e - b) + "\n";
    hoist.replace(b - open, e - open, "");
  }
  auto rest = hoist.apply(k.source().substr(open, close - open));
  if (!rest) return rest.error();
  for (size_t first; (first = rest->find_first_not_of(" \t")) != std::string::npos && (*rest)[first] == '\n';)
    rest->erase(0, first + 1); // blank lines: the brace's, a hoisted declaration's
  rest->erase(rest->find_last_not_of(" \t\n") + 1);

  std::string guard, constants;
  for (const Specialized &s : chosen) {
    std::string name = s.param->getNameAsString(), value = literal(s.value, s.param->getType());
    guard += (guard.empty() ? "" : " && ") + name + " == " + value;
    constants +=
        "    const " + s.param->getType().getUnqualifiedType().getAsString(policy) + " " + name + " = " + value + ";\n";
  }
  Output out;
  out.source = k.source().substr(0, open) + "\n" + shared + "  if (" + guard + ") {\n" + constants + *rest +
               "\n  } else {\n" + *rest + "\n  }\n" + k.source().substr(close);
  out.numerics = cache::kNumericsExact;
  return out;
}

} // namespace

Transform versioning_transform() {
  return {"value_versioning",
          cache::kNumericsExact,
          "a second version of the body with the integer parameters that bound loops or divide as the constants "
          "every capture passed, under a guard that compares them",
          true,
          space,
          apply};
}

} // namespace kbcc::transform
