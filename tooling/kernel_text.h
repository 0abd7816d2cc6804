// Lexical helpers over the text of one kernel definition: where its name,
// parameter list and body are, which loops it has. Comments and literals are
// masked first, so the helpers never match inside them.
#pragma once
#include "support/expected.h"

#include <string>
#include <utility>
#include <vector>

namespace kbcc::tooling {

// `src` with comment and string/char literal contents replaced by spaces
// (same length, newlines kept), so positions match the original.
std::string mask_code(const std::string &src);

struct KernelText {
  std::string name;
  size_t global_pos = 0;   // offset of "__global__"
  size_t name_pos = 0;     // offset of the kernel name
  size_t name_end = 0;     // offset past it and its template arguments ("k<float>" of a specialization)
  size_t params_open = 0;  // offset of '(' of the parameter list
  size_t params_close = 0; // offset of the matching ')'
  size_t body_open = 0;    // offset of '{'
  size_t body_close = 0;   // offset of the matching '}'
  bool has_launch_bounds = false;
  bool has_maxnreg = false;
};

// True when `src` begins (comments aside) with "template <>": an explicit
// specialization, the form a variant of one template instance takes.
bool is_explicit_specialization(const std::string &src);

// A qualified name split after its last "::" outside template arguments:
// {"ns::", "k<ns::V>"} for "ns::k<ns::V>".
std::pair<std::string, std::string> split_qualified(const std::string &name);

// Finds the parts of the first __global__ function definition in `src`.
Expected<KernelText> parse_kernel_text(const std::string &src);

// Offset of the bracket matching the one at `open` in masked text, or npos.
size_t match_bracket(const std::string &masked, size_t open);

// Parameter declarations split at top-level commas (trimmed).
std::vector<std::string> split_params(const std::string &src, const KernelText &k);

// The name declared by one parameter declaration ("" when unnamed).
std::string param_name(const std::string &decl);

// A parameter declaration with whitespace normalized and __restrict__,
// restrict and parameter names removed: what must stay the same.
std::string param_signature(const std::string &decl);

struct Loop {
  std::string keyword;                      // for, while, do
  size_t pos = 0;                           // offset of the keyword
  size_t header_open = 0, header_close = 0; // parentheses (for/while); 0 for do
  size_t body_begin = 0, body_end = 0;      // [begin, end) of the controlled statement
  std::string header;                       // text inside the parentheses
};

// Loops inside the body of `k`, in source order.
std::vector<Loop> find_loops(const std::string &src, const KernelText &k);

// True when `ident` occurs in `text` as a whole identifier that is not a
// member name (`blockDim.x` does not name a variable `x`).
bool has_identifier(const std::string &text, const std::string &ident);

} // namespace kbcc::tooling
