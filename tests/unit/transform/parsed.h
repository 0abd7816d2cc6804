// What the transform tests share: a kernel parsed from text.
#pragma once

#include "transform/ast.h"

#include <gtest/gtest.h>
#include <string>

namespace kbcc::transform::test {

// The first kernel of `text`, parsed for sm_90 as a unit of its own; the
// test fails when it does not parse.
inline KernelAst parsed(const std::string &text) {
  tooling::ParseRequest r;
  r.source = "/virtual/k.cu";
  r.arch = "sm_90";
  auto a = parse_kernel(r, text, "");
  EXPECT_TRUE(a) << (a ? "" : a.error().message);
  return std::move(*a);
}

} // namespace kbcc::transform::test
