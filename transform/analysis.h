// Legality building blocks shared by the transforms: CUDA builtin index reads
// and the global-index idiom, what a body does (barriers, warp operations,
// shared memory, atomics, stores), canonical counted loops, accumulations,
// guards and the bounds they check, and expressions of parameters that can be
// written in the launch-mapping language.
#pragma once

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/AST/StmtCXX.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kbcc::transform {

class KernelAst;

// Calls `fn` on every statement under `s` (including `s`), pre-order.
void walk(const clang::Stmt *s, const std::function<void(const clang::Stmt *)> &fn);

// A read of threadIdx/blockIdx/blockDim/gridDim .x/.y/.z.
struct Builtin {
  enum Var { ThreadIdx, BlockIdx, BlockDim, GridDim } var = ThreadIdx;
  int dim = 0; // 0 = x, 1 = y, 2 = z
  const clang::Expr *expr = nullptr;
};
std::optional<Builtin> as_builtin(const clang::Expr *e);

// blockIdx.d * blockDim.d + threadIdx.d, in any operand order, with casts.
struct GlobalIndex {
  int dim = 0;
  const clang::Expr *expr = nullptr;
};
std::optional<GlobalIndex> as_global_index(const clang::Expr *e);

// Every builtin read of a body, split into global-index idioms and the rest.
struct IndexUses {
  std::vector<GlobalIndex> global;
  std::vector<Builtin> other;
  bool global_in(int dim) const;
  bool any_in(int dim) const; // global or other
};
IndexUses index_uses(const clang::Stmt *body);

// What code does, following calls into user functions.
struct Effects {
  bool barrier = false;       // __syncthreads*, __syncwarp, barrier/cooperative-group syncs
  bool warp_ops = false;      // shuffles, votes, match, warp reductions, __activemask
  bool shared_memory = false; // __shared__ variables
  bool atomics = false;
  bool inline_asm = false;
  bool device_launch = false;                        // launches from device code
  bool unknown_calls = false;                        // calls through pointers or to functions without a body
  std::vector<const clang::CallExpr *> atomic_calls; // in the kernel itself
};
Effects effects_of(const clang::FunctionDecl *kernel);
// The same for one statement of a kernel (its atomic_calls: those written in it).
Effects effects_in(const clang::Stmt *code);

// Whether lvalue `lhs` is in memory: not a local scalar, not an element of a
// local (non-__shared__) array and not one of an array member of a local struct.
bool is_memory(const clang::Expr *lhs);
// The variable `e` names (through parentheses and implicit casts), if any.
const clang::VarDecl *var_of(const clang::Expr *e);
// Whether `e` (through parens and implicit casts) names `var`.
bool names(const clang::Expr *e, const clang::VarDecl *var);
// Whether `s` stores to memory (anything but local scalars and local arrays),
// calls an atomic, or calls a user function that may.
bool writes_memory(const clang::Stmt *s);
// Whether `s` loads from memory (a dereference or subscript of a pointer).
bool reads_memory(const clang::Stmt *s);
// The arguments of call `s` (none when it is no call) that a non-const
// reference parameter binds, which the callee may write through; every
// lvalue argument when the callee is unknown.
std::vector<const clang::Expr *> reference_arguments(const clang::Stmt *s);
// Whether `s` assigns `var` (=, op=, ++, --, takes its address, or passes it
// to a call's non-const reference parameter).
bool assigns(const clang::Stmt *s, const clang::VarDecl *var);
// Whether `s` refers to `var`.
bool refers_to(const clang::Stmt *s, const clang::VarDecl *var);
// How many times `s` names `decl`.
int references(const clang::Stmt *s, const clang::ValueDecl *decl);
// Whether `s` is a call of __syncthreads() (no arguments).
bool is_syncthreads(const clang::Stmt *s);
// Whether `s` reads or writes through volatile (a volatile object or a
// pointer to volatile elements): code that relies on a warp's threads
// running together.
bool accesses_volatile(const clang::Stmt *s);
// Whether `s` holds a statement of one of these kinds.
bool has_return(const clang::Stmt *s);
// Whether `s` holds a `return` inside a loop or switch of its own.
bool returns_in_loop(const clang::Stmt *s);
// Whether `s` is a declaration of `__shared__` variables only.
bool declares_shared(const clang::Stmt *s);
bool has_break_or_goto(const clang::Stmt *s); // break/goto/switch that leave `s`'s loops, labels
// Whether `s` has a `continue` of the loop it is in (not of a nested loop).
bool continues(const clang::Stmt *s);
// C when `s` is `if (C) continue;` (or `{ continue; }`) without else.
const clang::Expr *continue_guard(const clang::Stmt *s);

// The `if`s on the way to a statement: condition, taken branch (true: then).
using Path = std::vector<std::pair<const clang::Expr *, bool>>;

// Calls `on_read(read, path, plain)` for each element read X[...] in `s`, with
// the `if`s on its path; `plain` when it runs whenever its path holds: not in
// a nested loop, a switch, a conditional operator, a lambda or the right of
// && and ||, and after no `continue` other than `if (C) continue;` (whose !C
// joins the path). Returning true ends the walk below that read.
void for_each_read(const clang::Stmt *s,
                   const std::function<bool(const clang::ArraySubscriptExpr *, const Path &, bool)> &on_read);

// for (T v = init; v < bound (or <=); ++v / v++ / v += 1 / v = v + 1) body,
// with `v` an integer not assigned in the body; or the same with `v = init`
// where `v` is a local no code outside the loop reads a value of: every
// other reference lies in another loop that starts with `v = init`, as in
// C-style code (`int j; for (j = 0; ...) ... for (j = 0; ...)`); any local
// when `reused_var`: the caller then checks what reads it after the loop.
// Whether local `v`, declared without a value, is set first by every loop
// that uses it: each reference lies in a for statement starting `v = init`
// that does not read `v` in that init (a C-style loop counter, `int j;`).
// No value of it then passes from one loop, or one item, to another.
bool loop_counter(const clang::Stmt *body, const clang::VarDecl *v);

struct CountedLoop {
  const clang::ForStmt *loop = nullptr;
  const clang::VarDecl *var = nullptr;
  const clang::Expr *init = nullptr;
  const clang::Expr *bound = nullptr;
  bool inclusive = false; // v <= bound
};
std::optional<CountedLoop> counted_loop(const clang::ForStmt *loop, bool reused_var = false);

// One update of an accumulator inside a loop: s += e, s -= e, s = s + e,
// ++s, s |= e, s &= e, s ^= e, s = f(s, e) with f a max or min function.
struct Accumulation {
  const clang::VarDecl *var = nullptr;
  enum Kind { Sum, Or, And, Xor, MaxMin } kind = Sum;
  std::string combine; // for MaxMin: the function's name as written (fmaxf, max, ...)
  const clang::Stmt *stmt = nullptr;
};
// The accumulations of `loop`'s body into local scalars declared outside it,
// when every write to such a variable in the body is one (and it is read
// nowhere else in the body); nullopt when some write is not. Variables in
// `skip` (those of selections) are left to the caller.
std::optional<std::vector<Accumulation>> accumulations(const clang::ForStmt *loop, const clang::ASTContext &ctx,
                                                       const std::set<const clang::VarDecl *> &skip = {});

// A selection of the loop's best element and of what goes with it, as
// argmax and nearest-neighbour searches write it:
//   if (X OP best) { best = X; c1 = V1; ... }   (OP: < <= > >=, best on either side)
// without else and not in a loop nested in the loop; `best` and the carried
// c_k are local arithmetic scalars declared outside the loop, which the loop
// names nowhere else (so X and the V_k read none of them). Run in order,
// the loop leaves in `best` the extreme of its start and every X, and in the
// c_k the V_k of the first iteration that reached it (strict OP) or of the
// last (non-strict): lanes that each run a part of the iterations in
// increasing order combine exactly, by value and then by iteration.
// `best = X OP best ? X : best;` (best on either side of OP, X free of side
// effects) is the same selection with nothing carried: it assigns best to
// itself where the if does not assign it. So is `best = X OP best ? best : X;`
// for integers, with the negated test (for floating values a NaN X would be
// kept there, and forgotten at the next iteration).
struct Selection {
  const clang::IfStmt *stmt = nullptr;         // the if form
  const clang::BinaryOperator *pick = nullptr; // the ?: form's assignment
  bool negated = false;                        // the ?: form keeps X where its test fails
  const clang::VarDecl *best = nullptr;
  std::vector<const clang::VarDecl *> carried;
  bool greater = true; // best keeps the larger value
  bool strict = true;  // a tie keeps the earlier iteration (else the later)
};
std::vector<Selection> selections(const clang::ForStmt *loop, const clang::ASTContext &ctx);
// Whether local `v`, declared outside `loop`, is a temporary of each of its
// iterations, as C-style code declares them first (`float term; ... for
// (...) { term = x[i]; term *= term; s += term; }`): every reference to it
// lies in the loop's body, and the first statement of the body that names
// it is `v = E;` with E not naming it. No value of it then passes from one
// iteration to another or out of the loop.
bool loop_temporary(const clang::VarDecl *v, const clang::ForStmt *loop);
// Whether `v` is declared within the source range of `s`.
bool declared_in(const clang::VarDecl *v, const clang::Stmt *s, const clang::ASTContext &ctx);
// The local scalar (not an array) declared outside `loop` that `lhs` names,
// or nullptr; nullptr too for a loop_temporary, which acts as declared in
// the loop.
const clang::VarDecl *outer_scalar(const clang::Expr *lhs, const clang::ForStmt *loop, const clang::ASTContext &ctx);
// The accumulation statement `s` makes into `var`, when it is one.
std::optional<Accumulation> accumulation_in(const clang::Stmt *s, const clang::VarDecl *var,
                                            const clang::ASTContext &ctx);
// `x` combined with `y` by the accumulation's operation, as CUDA text.
std::string combine_text(const Accumulation &a, const std::string &x, const std::string &y);

// The one value local `v` holds wherever the kernel reads it: its
// initializer when nothing assigns it, or E when it is declared without one
// and its only assignment is a top-level statement `v = E;` of the function's
// body that no reference to `v` precedes. nullptr otherwise (and for
// parameters).
const clang::Expr *value_of(const clang::VarDecl *v);

// Local variables whose value (value_of) is the global index of `dim`:
//   int i = <global index>;  (const or never assigned afterwards), or
//   int i; ... i = <global index>;  (its only assignment, at the top level)
// or a local whose value is such a variable (int j = i;).
std::vector<const clang::VarDecl *> index_variables(const clang::Stmt *body, int dim);

// Bound B of `e` when it is `var < B` (or `B > var`); nullptr otherwise.
const clang::Expr *less_than_bound(const clang::Expr *e, const clang::VarDecl *var);
// Bound B of `e` when it is `var >= B` (or `B <= var`); nullptr otherwise.
const clang::Expr *at_least_bound(const clang::Expr *e, const clang::VarDecl *var);
// The operands of a chain of `op` (&& or ||), through parentheses.
void split_terms(const clang::Expr *e, clang::BinaryOperatorKind op, std::vector<const clang::Expr *> &out);
// Whether `s` is `return;` or `{ return; }`.
bool only_returns(const clang::Stmt *s);
// The last statement of `block` when it is `if (C) { ... }` (no else, no init
// statement or condition variable): a thread's work under its bounds check,
// which a thread failing C leaves as if it returned. nullptr otherwise.
const clang::IfStmt *work_block(const clang::CompoundStmt *block);

// The value of integer expression `e` when the compiler can evaluate it
// (literals, constexpr, enumerators, sizeof); nullopt otherwise.
std::optional<long long> constant_value(const clang::Expr *e, const clang::ASTContext &ctx);

// Whether every thread of a block computes the same value for `e`: it reads
// only literals, enumerators, parameters nothing assigns, blockIdx, blockDim,
// gridDim and locals whose value_of is such an expression (followed `depth`
// levels at most), through operators, casts and sizeof; no memory, no calls.
bool block_uniform(const clang::Expr *e, int depth = 0);
// Whether `s` is `if (C) return;` without else and C block_uniform: the
// whole block leaves, so the threads that stay fill their warps.
bool is_block_exit(const clang::Stmt *s);
// The statements the threads of a block run alike, in order: `body`'s, where
// a last statement `if (C) { S... }` (work_block, C block_uniform) that holds
// a barrier stands for S..., at any depth. `guarded`: whether one did.
std::vector<const clang::Stmt *> block_statements(const clang::CompoundStmt *body, bool &guarded);

// The upper bounds that guards of `body` check `var` against: from
// `if (var >= B ...) return;` and `if (var < B && ...) { rest }` forms.
std::vector<const clang::Expr *> guard_bounds(const clang::CompoundStmt *body, const clang::VarDecl *var);

// `e` in the launch-mapping language when it is built from integer
// parameters, integer literals, + - * / and parentheses (and shifts of
// constants, `1 << 20`, folded), or from locals
// whose value_of is; nullopt otherwise.
std::optional<std::string> as_mapping_expr(const clang::Expr *e);

// The integer parameters `e` reads (through casts).
std::set<std::string> integer_params(const clang::Expr *e);

// The root pointer parameter of a memory access's base (through local
// pointers initialised from parameters); nullptr when unknown.
const clang::ParmVarDecl *root_parameter(const clang::Expr *base);

// The additive terms of `e` (through parentheses and casts): `a + b - c`
// gives a, b as `positive` and c as `negative` (`negated` flips them).
void signed_terms(const clang::Expr *e, bool negated, std::vector<const clang::Expr *> &positive,
                  std::vector<const clang::Expr *> &negative);

// Whether `var` is one plain, positive additive term of `e` and no other
// term reads it: consecutive values of `var` address consecutive elements.
bool unit_stride(const clang::Expr *e, const clang::VarDecl *var);

// `e` without parentheses, implicit casts and explicit casts between
// integers to a type of `min_bits` or more.
const clang::Expr *strip_int_casts(const clang::Expr *e, const clang::ASTContext &ctx, unsigned min_bits = 32);

// Structural equality of two expressions (same operators, same variables, same literals).
bool same_expr(const clang::Expr *a, const clang::Expr *b, const clang::ASTContext &ctx);

} // namespace kbcc::transform
