// Lexical transforms: attributes, pragmas and intrinsics placed at token
// positions of the kernel's text (launch_bounds, maxnreg, unroll,
// restrict_ldg, fast_math). They change no control or data flow.
#include "cache/variant.h"
#include "tooling/kernel_text.h"
#include "transform/transform.h"

#include <algorithm>
#include <regex>

namespace kbcc::transform {
using tooling::find_loops;
using tooling::Loop;
using tooling::mask_code;
using tooling::parse_kernel_text;
namespace {

// Inserts `attr` right before the kernel name ("__global__ void ATTR name(").
Expected<std::string> insert_before_name(const std::string &src, const std::string &attr) {
  auto k = parse_kernel_text(src);
  if (!k) return k.error();
  std::string out = src;
  out.insert(k->name_pos, attr + " ");
  return out;
}

Expected<std::string> launch_bounds(const std::string &src, const Input &c, const Params &params) {
  auto k = parse_kernel_text(src);
  if (!k) return k.error();
  if (k->has_launch_bounds || k->has_maxnreg)
    return not_applicable("kernel already has __launch_bounds__ or __maxnreg__");
  if (c.launches.empty()) return not_applicable("no captured launch configuration");
  unsigned max_threads = 0;
  for (const launch::Launch &l : c.launches)
    max_threads = std::max(max_threads, l.block[0] * l.block[1] * l.block[2]);
  if (max_threads == 0 || max_threads > 1024) return not_applicable("captured block size out of range");
  std::string attr = "__launch_bounds__(" + std::to_string(max_threads);
  int min_blocks = int_param(params, "min_blocks", 0);
  if (min_blocks > 0) attr += ", " + std::to_string(min_blocks);
  return insert_before_name(src, attr + ")");
}

Expected<std::string> maxnreg(const std::string &src, const Input &c, const Params &params) {
  auto k = parse_kernel_text(src);
  if (!k) return k.error();
  if (k->has_launch_bounds || k->has_maxnreg)
    return not_applicable("kernel already has __launch_bounds__ or __maxnreg__");
  int cap = int_param(params, "registers", 0);
  if (cap <= 0) {
    auto it = c.metrics.find("registers_per_thread");
    if (it == c.metrics.end()) return not_applicable("register count unknown (no profile)");
    int regs = static_cast<int>(it->second);
    if (regs <= 32) return not_applicable("kernel already uses 32 registers or fewer");
    double fraction = int_param(params, "percent", 75) / 100.0;
    cap = std::max(32, static_cast<int>(regs * fraction) / 8 * 8);
  }
  return insert_before_name(src, "__maxnreg__(" + std::to_string(cap) + ")");
}

// True when the statement before `pos` ends (so a pragma line may go here).
bool at_statement_start(const std::string &masked, size_t pos) {
  size_t p = masked.find_last_not_of(" \t\r\n", pos == 0 ? 0 : pos - 1);
  if (pos == 0 || p == std::string::npos) return true;
  char c = masked[p];
  return c == '{' || c == '}' || c == ';';
}

bool has_pragma_before(const std::string &src, size_t pos) {
  size_t line_start = src.rfind('\n', pos == 0 ? 0 : pos - 1);
  if (line_start == std::string::npos) return false;
  size_t prev = src.rfind('\n', line_start == 0 ? 0 : line_start - 1);
  std::string line =
      src.substr(prev == std::string::npos ? 0 : prev + 1, line_start - (prev == std::string::npos ? 0 : prev + 1));
  return line.find("#pragma") != std::string::npos;
}

Expected<std::string> unroll(const std::string &src, const Input &, const Params &params) {
  auto k = parse_kernel_text(src);
  if (!k) return k.error();
  int factor = int_param(params, "factor", 4);
  if (factor < 2 || factor > 64) return not_applicable("unroll factor out of range");
  std::string masked = mask_code(src);
  std::vector<Loop> loops = find_loops(src, *k);
  std::vector<size_t> at;
  for (const Loop &l : loops) {
    if (l.keyword != "for") continue;
    bool innermost = std::none_of(loops.begin(), loops.end(), [&](const Loop &o) {
      return o.pos > l.pos && o.pos >= l.body_begin && o.pos < l.body_end;
    });
    if (innermost && at_statement_start(masked, l.pos) && !has_pragma_before(src, l.pos)) at.push_back(l.pos);
  }
  if (at.empty()) return not_applicable("no innermost for loop without a pragma");
  std::string out = src, pragma = "#pragma unroll " + std::to_string(factor) + "\n";
  for (auto it = at.rbegin(); it != at.rend(); ++it) {
    size_t line = out.rfind('\n', *it == 0 ? 0 : *it - 1);
    line = line == std::string::npos ? 0 : line + 1;
    std::string indent = out.substr(line, *it - line);
    if (indent.find_first_not_of(" \t") == std::string::npos)
      out.insert(line, indent + pragma); // own line
    else
      out.insert(*it, "\n" + pragma);
  }
  return out;
}

// Refuses an explicit specialization (a template's instance): its parameter
// types must be the primary template's, and nvcc's host stub of one whose
// pointer is __restrict__ matches no template declaration.
Expected<std::string> restrict_ldg(const std::string &src, const Input &, const Params &) {
  auto k = parse_kernel_text(src);
  if (!k) return k.error();
  if (tooling::is_explicit_specialization(src))
    return not_applicable("the kernel is a template's explicit specialization, whose parameters must keep the "
                          "template's types");
  std::string masked = mask_code(src);
  std::vector<size_t> inserts;
  int depth = 0;
  size_t start = k->params_open + 1;
  for (size_t i = start; i <= k->params_close; ++i) {
    char ch = masked[i];
    if (i < k->params_close && (ch == '(' || ch == '<' || ch == '[')) ++depth;
    if (i < k->params_close && (ch == ')' || ch == '>' || ch == ']')) --depth;
    if ((ch == ',' && depth == 0) || i == k->params_close) {
      std::string decl = masked.substr(start, i - start);
      size_t star = decl.find('*');
      bool one_star = star != std::string::npos && decl.find('*', star + 1) == std::string::npos;
      bool const_pointee = one_star && std::regex_search(decl.substr(0, star), std::regex("\\bconst\\b"));
      bool already = decl.find("restrict") != std::string::npos;
      if (const_pointee && !already && decl.find('&') == std::string::npos && decl.find('(') == std::string::npos)
        inserts.push_back(start + star + 1);
      start = i + 1;
    }
  }
  if (inserts.empty()) return not_applicable("no const pointer parameter without __restrict__");
  std::string out = src;
  for (auto it = inserts.rbegin(); it != inserts.rend(); ++it)
    out.insert(*it, " __restrict__ ");
  return out;
}

Expected<std::string> fast_math(const std::string &src, const Input &, const Params &) {
  auto k = parse_kernel_text(src);
  if (!k) return k.error();
  static const std::pair<const char *, const char *> intrinsics[] = {
      {"expf", "__expf"}, {"exp10f", "__exp10f"}, {"logf", "__logf"}, {"log2f", "__log2f"}, {"log10f", "__log10f"},
      {"sinf", "__sinf"}, {"cosf", "__cosf"},     {"tanf", "__tanf"}, {"powf", "__powf"}};
  std::string masked = mask_code(src);
  std::string body = src.substr(k->body_open, k->body_close - k->body_open);
  std::string mbody = masked.substr(k->body_open, k->body_close - k->body_open);
  std::vector<std::pair<size_t, std::pair<size_t, std::string>>> edits; // offset, (length, text)
  for (const auto &[from, to] : intrinsics) {
    std::regex call(std::string("(^|[^A-Za-z0-9_.:>])(") + from + ")\\s*\\(");
    for (auto it = std::sregex_iterator(mbody.begin(), mbody.end(), call); it != std::sregex_iterator(); ++it)
      edits.push_back({static_cast<size_t>(it->position(2)), {std::string(from).size(), to}});
  }
  if (edits.empty()) return not_applicable("no single-precision math call with a fast intrinsic");
  std::sort(edits.begin(), edits.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
  for (const auto &[pos, e] : edits)
    body.replace(pos, e.first, e.second);
  return src.substr(0, k->body_open) + body + src.substr(k->body_close);
}

using TextFn = Expected<std::string> (*)(const std::string &, const Input &, const Params &);

// Applies `fn` and wraps its text: lexical transforms keep the launch.
template <TextFn fn, const char *numerics> Expected<Output> lexical(const Input &in, const Params &params) {
  auto text = fn(in.source, in, params);
  if (!text) return text.error();
  Output out;
  out.source = *text;
  out.numerics = numerics;
  return out;
}

// The space of a lexical transform: `axes` when a trial application with
// their first values succeeds (so "not applicable" is known before a search).
template <TextFn fn> Expected<std::vector<Axis>> probe(const Input &in, std::vector<Axis> axes) {
  Params first;
  for (const Axis &a : axes)
    first[a.name] = a.values.front();
  auto text = fn(in.source, in, first);
  if (!text) return text.error();
  return axes;
}

constexpr char kExact[] = "exact";
constexpr char kApproximate[] = "approximate";

} // namespace

std::vector<Transform> lexical_transforms() {
  return {
      {"launch_bounds", kExact, "__launch_bounds__(largest block of the current launches[, min blocks])", false,
       [](const Input &in) {
         return probe<launch_bounds>(in, {{"min_blocks", {"0", "2", "4"}}});
       },
       lexical<launch_bounds, kExact>},
      {"maxnreg", kExact, "__maxnreg__(cap) below the profiled register count", false,
       [](const Input &in) {
         return probe<maxnreg>(in, {{"percent", {"75", "62", "50"}}});
       },
       lexical<maxnreg, kExact>},
      {"unroll", kExact, "#pragma unroll N on innermost for loops", false,
       [](const Input &in) {
         return probe<unroll>(in, {{"factor", {"4", "8", "2", "16"}}});
       },
       lexical<unroll, kExact>},
      {"restrict_ldg", kExact, "const __restrict__ on read-only pointer parameters (read-only cache)", false,
       [](const Input &in) { return probe<restrict_ldg>(in, {}); }, lexical<restrict_ldg, kExact>},
      {"fast_math", kApproximate, "fast intrinsics (__expf, __sinf, ...) for single-precision math calls", false,
       [](const Input &in) { return probe<fast_math>(in, {}); }, lexical<fast_math, kApproximate>},
  };
}

} // namespace kbcc::transform
