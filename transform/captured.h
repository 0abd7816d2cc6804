// What the captured arguments tell a transform: the values that integer
// expressions of the kernel's parameters take on the captured launches, to
// judge what a rewrite can gain (a loop's trip count, say).
#pragma once

#include "transform/transform.h"

#include "clang/AST/Expr.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kbcc::transform {

// The value of `e` on each capture of `in` (in.arguments' order): nullopt
// for a capture that lacks an argument `e` reads, and for every capture when
// `e` is not built from integer parameters, literals and locals holding
// such values (as_mapping_expr).
std::vector<std::optional<int64_t>> captured_values(const clang::Expr *e, const Input &in);
// The same for an expression of the mapping language (launch/expr.h) that
// reads only integer parameters.
std::vector<std::optional<int64_t>> captured_values(const std::string &text, const Input &in);

} // namespace kbcc::transform
