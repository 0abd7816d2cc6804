// value_versioning (strength_reduction_index_math): a kernel whose integer
// parameters take one value, or a few, over the captured launches gets its
// body as a local function, called with those parameters as the constants
// of each set of values the captures passed, under a guard that compares
// them, and with the parameters otherwise:
//
//   struct __kbcc_versions {
//     static __device__ __forceinline__ void __kbcc_body(PARAMS) BODY
//   };
//   if (k == 5 && w == 2048) __kbcc_versions::__kbcc_body(x, 5, 2048);
//   else if (k == 3 && w == 2048) __kbcc_versions::__kbcc_body(x, 3, 2048);
//   else __kbcc_versions::__kbcc_body(x, k, w);
//
// Every call is inlined, so in each version nvcc sees the values and can
// unroll loops whose trip counts become known and turn divisions by them
// into multiplications and shifts. The guard is the same for every thread
// of the grid, so barriers stay uniform. The body is written once, so its
// labels, preprocessor directives and macros mean what they meant, and its
// static __shared__ variables are allocated once for every call. At most
// four versions are made (parameters with fewer distinct values are taken
// first), the most frequent values first.
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

#include <algorithm>
#include <map>
#include <set>

namespace kbcc::transform {
using namespace clang;

namespace {

// The parameters a kernel is versioned on, and the values of each version
// (one per parameter, in order), the most frequent over the captures first.
struct Versions {
  std::vector<const ParmVarDecl *> params;
  std::vector<std::vector<int64_t>> values;
};

struct Plan {
  Versions loops; // parameters that bound a loop's trip count or divide
  Versions all;   // those and every other integer parameter that fits
};

// At most this many versions besides the body as written: each is one more
// inlined copy of the body.
constexpr size_t kMaxVersions = 4;

// The local class that holds a versioned kernel's body, and its function.
constexpr const char *kVersions = "__kbcc_versions";
constexpr const char *kBody = "__kbcc_body";

// The distinct values of `params` over the captures of `in`, most frequent
// first (first captured first among equals); empty when a capture lacks one.
std::vector<std::vector<int64_t>> value_sets(const Input &in, const std::vector<const ParmVarDecl *> &params) {
  std::vector<std::pair<std::vector<int64_t>, size_t>> counted;
  for (const auto &args : in.arguments) {
    std::vector<int64_t> set;
    for (const ParmVarDecl *p : params) {
      auto it = args.find(p->getNameAsString());
      if (it == args.end()) return {};
      set.push_back(it->second);
    }
    auto same = std::find_if(counted.begin(), counted.end(), [&](const auto &c) { return c.first == set; });
    if (same == counted.end())
      counted.emplace_back(std::move(set), 1);
    else
      ++same->second;
  }
  std::stable_sort(counted.begin(), counted.end(), [](const auto &x, const auto &y) { return x.second > y.second; });
  std::vector<std::vector<int64_t>> out;
  out.reserve(counted.size());
  for (auto &c : counted)
    out.push_back(std::move(c.first));
  return out;
}

// `chosen` grown by each of `candidates` (fewest distinct values first,
// then in order) that keeps the versions at kMaxVersions or fewer; the
// parameters stay in declaration order, as `order` lists them.
Versions grow(const Input &in, Versions chosen, std::vector<const ParmVarDecl *> candidates,
              const std::vector<const ParmVarDecl *> &order) {
  std::map<const ParmVarDecl *, size_t> distinct;
  for (const ParmVarDecl *p : candidates)
    distinct[p] = value_sets(in, {p}).size();
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const ParmVarDecl *x, const ParmVarDecl *y) { return distinct[x] < distinct[y]; });
  for (const ParmVarDecl *p : candidates) {
    std::vector<const ParmVarDecl *> more;
    for (const ParmVarDecl *q : order)
      if (q == p || std::find(chosen.params.begin(), chosen.params.end(), q) != chosen.params.end()) more.push_back(q);
    auto values = value_sets(in, more);
    if (values.empty() || values.size() > kMaxVersions) continue;
    chosen = {std::move(more), std::move(values)};
  }
  return chosen;
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
  std::set<std::string> useful = loop_and_divisor_params(body);
  std::vector<const ParmVarDecl *> order(k.kernel()->param_begin(), k.kernel()->param_end()), loops, others;
  for (const ParmVarDecl *p : order) {
    QualType t = p->getType();
    if (!t->isIntegerType() || t->isEnumeralType() || t.isVolatileQualified() || references(body, p) == 0) continue;
    (useful.count(p->getNameAsString()) ? loops : others).push_back(p);
  }
  Plan plan;
  plan.loops = grow(in, {}, loops, order);
  if (plan.loops.params.empty())
    return not_applicable("no integer parameter that bounds a counted loop or divides is passed on every captured "
                          "launch with at most " +
                          std::to_string(kMaxVersions) + " distinct values");
  plan.all = grow(in, plan.loops, others, order);
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
  if (plan->all.params.size() > plan->loops.params.size()) values.push_back("all");
  return std::vector<Axis>{{"params", values}};
}

Expected<Output> apply(const Input &in, const Params &params) {
  auto plan = analyze(in);
  if (!plan) return plan.error();
  auto which = params.count("params") ? params.at("params") : "loops";
  if (which != "loops" && which != "all") return not_applicable("params must be loops or all, not '" + which + "'");
  const Versions &chosen = which == "all" ? plan->all : plan->loops;
  const KernelAst &k = *in.ast;
  // The call with `values` for the chosen parameters (none: with the
  // parameters), adding to `guard` the comparisons that select it.
  auto call = [&](const std::vector<int64_t> *values, std::string &guard) {
    std::string args;
    for (const ParmVarDecl *p : k.kernel()->parameters()) {
      std::string value = p->getNameAsString();
      auto at = std::find(chosen.params.begin(), chosen.params.end(), p);
      if (values && at != chosen.params.end()) {
        value = literal((*values)[at - chosen.params.begin()], p->getType());
        guard.append(guard.empty() ? "" : " && ").append(p->getNameAsString()).append(" == ").append(value);
      }
      args.append(args.empty() ? "" : ", ").append(value);
    }
    return std::string(kVersions) + "::" + kBody + "(" + args + ");\n";
  };
  std::string calls, none;
  for (const std::vector<int64_t> &values : chosen.values) {
    std::string guard, body = call(&values, guard);
    calls.append(calls.empty() ? "  if (" : "  else if (").append(guard).append(") ").append(body);
  }
  auto source = versioned(k.source(), calls.append("  else ").append(call(nullptr, none)));
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
