// The expression language of launch mappings and preconditions
// (docs/kernels.md, "Launch-changing variants"): 64-bit signed integer
// arithmetic over the original launch (grid.x, grid.y, grid.z, block.x,
// block.y, block.z, shared) and the kernel's scalar parameters, with
//   + - * / %   == != < <= > >=   && || !   ( )
//   ceil_div(a, b)  min(a, b)  max(a, b)  aligned(pointer_parameter, bytes)
//   distinct(pointer_parameter, pointer_parameter)
// Division by zero and overflow make an evaluation fail (a precondition that
// cannot be evaluated does not hold). The same expression is evaluated here
// (replay, validation) and compiled into the host adapter as C++ (to_cpp), so
// both sides agree on every launch.
#pragma once

#include "support/expected.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kbcc::launch {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  enum class Kind { Number, Name, Unary, Binary, Call };
  Kind kind = Kind::Number;
  int64_t number = 0;        // Number
  std::string op;            // Name: the name; Unary/Binary: the operator; Call: the function
  std::vector<ExprPtr> args; // operands or call arguments
};

// Parses `text`. Errors name the offending position and token.
Expected<ExprPtr> parse_expr(const std::string &text);

// Canonical text: one space around binary operators, parentheses only where
// precedence needs them. parse_expr(to_string(e)) gives `e` back.
std::string to_string(const Expr &e);

// Values of names while evaluating.
class Scope {
public:
  virtual ~Scope() = default;
  // A launch field ("grid.x", "shared", ...) or a scalar parameter.
  virtual std::optional<int64_t> value(const std::string &name) const = 0;
  // The address held by a pointer parameter (for aligned() and distinct()).
  virtual std::optional<uint64_t> address(const std::string &name) const = 0;
};

// Evaluates `e`. Errors: unknown name, division by zero, overflow.
Expected<int64_t> evaluate(const Expr &e, const Scope &scope);

// Names read as values and names used as pointers (first argument of
// aligned(), both of distinct()).
void collect_names(const Expr &e, std::set<std::string> &values, std::set<std::string> &pointers);

// C++ text computing `e` as a long long through the checked helpers of the
// adapter runtime object `calc` (launch/adapter.h); `spell` maps each name to
// its C++ spelling (a long long for values, an unsigned long long for pointers).
std::string to_cpp(const Expr &e, const std::string &calc, const std::function<std::string(const std::string &)> &spell);

// `e` with every name found in `with` replaced by its expression.
ExprPtr substitute(const ExprPtr &e, const std::map<std::string, ExprPtr> &with);

// The launch fields, in a fixed order.
const std::vector<std::string> &launch_fields();

} // namespace kbcc::launch
