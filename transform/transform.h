// Mechanical transformations of one kernel definition: each lowers a KB
// technique id, exposes its parameters, and refuses with the reason when its
// legality analysis (transform/analysis.h) says it does not apply. A
// transform that changes how the kernel must be launched returns a launch
// mapping (launch/mapping.h) relative to the launch it started from. Every
// result is still validated on captured inputs before it is kept.
#pragma once

#include "launch/mapping.h"
#include "support/expected.h"
#include "transform/ast.h"

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kbcc::transform {

using Params = std::map<std::string, std::string>;

// One parameter and the values a search may try, most promising first.
struct Axis {
  std::string name;
  std::vector<std::string> values;
};

struct Input {
  std::string source;                    // the kernel's current definition
  const KernelAst *ast = nullptr;        // its unit parsed with `source` in place
  std::vector<launch::Launch> launches;  // the current launch of each capture
  std::map<std::string, double> metrics; // profile of the current definition
  // The integer arguments of each capture, by parameter name.
  std::vector<std::map<std::string, int64_t>> arguments;
};

struct Output {
  std::string source;
  std::optional<launch::LaunchMapping> launch; // relative to the input's launch; none = unchanged
  std::string numerics;                        // cache::kNumerics* class of this change
  std::string reduction_length;                // "reassociates": the number of reordered terms
  std::vector<std::string> size_params;        // integer parameters a validation may shrink
};

struct Transform {
  const char *id;
  const char *numerics; // class of its results
  const char *summary;
  bool needs_ast;
  // The parameter axes for this kernel (empty: none); Error "not-applicable"
  // naming the reason when the transform does not apply.
  Expected<std::vector<Axis>> (*space)(const Input &);
  Expected<Output> (*apply)(const Input &, const Params &);
  // Written for thread-per-item kernels: offered the thread-per-item form of
  // a kernel it refuses (transform/items_form.h).
  bool per_item = false;
  // A per_item transform whose rewrite of the form beats what it does with
  // the kernel as written: offered the form first, the kernel when the form
  // is refused.
  bool prefers_form = false;
};

// What transform `t` runs on for the kernel of `in`: the kernel as written,
// or, when `t` is per_item, refuses it (or prefers_form and accepts the
// form), and the kernel is a grid-stride loop
// (or a nest of two) with independent items, indexes a flattened 2-D grid
// or writes its block extent as a constant, its thread-per-item form
// (transform/items_form.h), with `t`'s axes there; when `t` refuses that
// form and its index splits into a row and a column, the split form of it,
// the launches composed. A structural transform
// that refuses both is offered the kernel's normal form (helpers inlined,
// while loops as for loops, accumulators in memory kept in registers:
// transform/normal_form.h) the same way. A kernel versioned on its
// parameters' values is offered as written before versioning, and its
// versions are put back around the result (transform/versioning.h).
struct Offer {
  std::vector<Axis> axes;
  Input input;                                      // the kernel or its form
  std::optional<launch::LaunchMapping> form_launch; // the form's launch, when `input` is the form
  std::shared_ptr<const KernelAst> form_ast;        // keeps the form's parse alive
  std::shared_ptr<const KernelAst> plain_ast;       // keeps a versioned kernel's plain parse alive
  std::string version_calls;                        // a versioned kernel's calls; empty otherwise
};
// Error: `t`'s refusal; when the form was tried too, why each failed.
Expected<Offer> offer(const Transform &t, const Input &in);
// `t.apply` on the offer's input; a form's launch mapping comes first, the
// transform's after it.
Expected<Output> apply_offer(const Transform &t, const Offer &o, const Params &p);

// Every transform, in documentation order.
const std::vector<Transform> &transforms();
const Transform *find_transform(const std::string &id);

// Every combination of the axes' values, in order (the first values first).
std::vector<Params> configurations(const std::vector<Axis> &axes);

// The integer value of parameter `key`, or `fallback` when it is absent or not a number.
long int_param(const Params &p, const char *key, long fallback);

// The block shape of parameter `key`, "BX" or "BXxBY", as (bx, by) with by =
// 1 for "BX"; `fallback` parsed when absent; (0, 0) when malformed or when
// it has a third extent other than 1.
std::pair<long, long> shape_param(const Params &p, const char *key, const std::string &fallback);

// The block shape of parameter `key`, "BX", "BXxBY" or "BXxBYxBZ", as
// {bx, by, bz} with the missing extents 1; `fallback` parsed when absent;
// {0, 0, 0} when malformed.
std::array<long, 3> shape3_param(const Params &p, const char *key, const std::string &fallback);

// An Error with code "not-applicable".
Error not_applicable(const std::string &why);

} // namespace kbcc::transform
