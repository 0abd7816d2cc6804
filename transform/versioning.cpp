// value_versioning (strength_reduction_index_math): a kernel whose integer
// parameters take one value on every captured launch gets its body as a
// local function, called once with those parameters as the constants every
// capture passed, under a guard that compares them, and once as written:
//
//   struct __kbcc_versions {
//     static __device__ __forceinline__ void __kbcc_body(PARAMS) BODY
//   };
//   if (k == 5 && w == 2048) __kbcc_versions::__kbcc_body(x, 5, 2048);
//   else __kbcc_versions::__kbcc_body(x, k, w);
//
// Both calls are inlined, so in the first nvcc sees the values and can
// unroll loops whose trip counts become known and turn divisions by them
// into multiplications and shifts. The guard is the same for every thread
// of the grid, so barriers stay uniform. The body is written once, so its
// labels, preprocessor directives and macros mean what they meant, and its
// static __shared__ variables are allocated once for both calls.
//
// Legality: a specialized parameter is an integer passed by value that the
// body reads; the local function's parameter is a copy, as the kernel's was,
// so the body may also write it. Every parameter has a name, no default
// argument and no __grid_constant__ (which a device function's parameter
// cannot carry). The class's names are reserved ones, so every name of the
// body still means what it meant.
#include "transform/versioning.h"

#include "cache/variant.h"
#include "tooling/kernel_text.h"
#include "transform/analysis.h"
#include "transform/transform.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"

#include <set>

namespace kbcc::transform {
using namespace clang;

namespace {

struct Specialized {
  const ParmVarDecl *param = nullptr;
  int64_t value = 0;
};

struct Plan {
  std::vector<Specialized> loops; // bound a loop's trip count or divide
  std::vector<Specialized> all;   // every parameter with one captured value
};

// The local class that holds a versioned kernel's body, and its function.
constexpr const char *kVersions = "__kbcc_versions";
constexpr const char *kBody = "__kbcc_body";

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

// The reason `k`'s parameters cannot be passed on to a local function as
// written, or "" when they can.
std::string unpassable_parameter(const KernelAst &k) {
  for (const ParmVarDecl *p : k.kernel()->parameters()) {
    std::string name = p->getNameAsString();
    if (name.empty()) return "a parameter has no name, so the body cannot be passed it";
    if (p->hasDefaultArg()) return "parameter '" + name + "' has a default argument";
    std::string text = k.text(p->getSourceRange());
    if (text.empty()) return "parameter '" + name + "' is written in a macro";
    if (text.find("__grid_constant__") != std::string::npos)
      return "parameter '" + name + "' is __grid_constant__, which a device function's parameter cannot be";
  }
  return "";
}

// The declaration of the class that holds a versioned kernel's body, when
// `body` starts with one.
const DeclStmt *versions_class(const CompoundStmt *body) {
  const auto *d = body->body_empty() ? nullptr : dyn_cast<DeclStmt>(body->body_front());
  const auto *r = d && d->isSingleDecl() ? dyn_cast<CXXRecordDecl>(d->getSingleDecl()) : nullptr;
  return r && r->getName() == kVersions ? d : nullptr;
}

Expected<Plan> analyze(const Input &in) {
  const KernelAst &k = *in.ast;
  const auto *body = dyn_cast_or_null<CompoundStmt>(k.kernel()->getBody());
  if (!body) return not_applicable("the kernel has no body");
  if (in.arguments.empty()) return not_applicable("no captured launch gives the integer parameters' values");
  if (versions_class(body)) return not_applicable("the kernel is already versioned on its parameters' values");
  if (k.offset(body->getLBracLoc()) == std::string::npos || k.offset(body->getRBracLoc()) == std::string::npos)
    return not_applicable("the kernel's body is written in a macro");
  if (std::string why = unpassable_parameter(k); !why.empty()) return not_applicable(why);
  Plan plan;
  std::set<std::string> useful = loop_and_divisor_params(body);
  for (const ParmVarDecl *p : k.kernel()->parameters()) {
    QualType t = p->getType();
    if (!t->isIntegerType() || t->isEnumeralType() || t.isVolatileQualified() || references(body, p) == 0) continue;
    auto v = one_value(in, p->getNameAsString());
    if (!v) continue;
    plan.all.push_back({p, *v});
    if (useful.count(p->getNameAsString())) plan.loops.push_back({p, *v});
  }
  if (plan.loops.empty())
    return not_applicable("no integer parameter that bounds a counted loop or divides takes one value on every "
                          "captured launch");
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
  std::string guard, versioned_args, args;
  for (const ParmVarDecl *p : k.kernel()->parameters()) {
    std::string name = p->getNameAsString(), value = name;
    for (const Specialized &s : chosen)
      if (s.param == p) value = literal(s.value, p->getType());
    if (value != name) guard += (guard.empty() ? "" : " && ") + name + " == " + value;
    versioned_args += (versioned_args.empty() ? "" : ", ") + value;
    args += (args.empty() ? "" : ", ") + name;
  }
  std::string call = std::string(kVersions) + "::" + kBody + "(";
  auto source =
      versioned(k.source(), "  if (" + guard + ") " + call + versioned_args + ");\n  else " + call + args + ");\n");
  if (!source) return source.error();
  Output out;
  out.source = *source;
  out.numerics = cache::kNumericsExact;
  return out;
}

} // namespace

std::optional<Versioned> versioned_parts(const KernelAst &k) {
  const auto *body = dyn_cast_or_null<CompoundStmt>(k.kernel()->getBody());
  const DeclStmt *d = body ? versions_class(body) : nullptr;
  if (!d) return std::nullopt;
  const FunctionDecl *inner = nullptr;
  for (const Decl *m : cast<CXXRecordDecl>(d->getSingleDecl())->decls())
    if (const auto *f = dyn_cast<FunctionDecl>(m); f && f->getName() == kBody && f->hasBody()) inner = f;
  if (!inner) return std::nullopt;
  const Stmt *inner_body = inner->getBody();
  size_t open = k.offset(body->getLBracLoc()), close = k.offset(body->getRBracLoc());
  size_t from = k.offset(inner_body->getBeginLoc()), to = k.offset(inner_body->getEndLoc());
  size_t calls = statement_end(k, d);
  if (open == std::string::npos || close == std::string::npos || from == std::string::npos || to == std::string::npos ||
      calls == std::string::npos)
    return std::nullopt;
  const std::string &src = k.source();
  Versioned v;
  v.plain = src.substr(0, open) + src.substr(from, to + 1 - from) + src.substr(close + 1);
  v.calls = src.substr(calls, close - calls);
  v.calls.erase(0, v.calls.find_first_not_of('\n'));
  return v;
}

Expected<std::string> versioned(const std::string &definition, const std::string &calls) {
  auto k = tooling::parse_kernel_text(definition);
  if (!k) return not_applicable(k.error().message);
  std::string params = definition.substr(k->params_open + 1, k->params_close - k->params_open - 1);
  return definition.substr(0, k->body_open) + "{\n  struct " + kVersions +
         " {\n    static __device__ __forceinline__ void " + kBody + "(" + params + ") " +
         definition.substr(k->body_open, k->body_close + 1 - k->body_open) + "\n  };\n" + calls + "}" +
         definition.substr(k->body_close + 1);
}

Transform versioning_transform() {
  return {"value_versioning",
          cache::kNumericsExact,
          "the body called once with the integer parameters that bound loops or divide as the constants every "
          "capture passed, under a guard that compares them, and once as written",
          true,
          space,
          apply};
}

} // namespace kbcc::transform
