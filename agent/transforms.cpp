#include "agent/transforms.h"

#include "tooling/kernel_text.h"

#include <algorithm>
#include <regex>

namespace kbcc::agent {
using tooling::find_loops;
using tooling::has_identifier;
using tooling::KernelText;
using tooling::Loop;
using tooling::mask_code;
using tooling::param_name;
using tooling::param_signature;
using tooling::parse_kernel_text;
using tooling::split_params;
namespace {

Error not_applicable(const std::string &why) { return make_error(why, "not-applicable"); }

int int_param(const TransformContext &c, const char *key, int fallback) {
  auto it = c.params.find(key);
  if (it == c.params.end()) return fallback;
  try {
    return std::stoi(it->second);
  } catch (...) {
    return fallback;
  }
}

// Inserts `attr` right before the kernel name ("__global__ void ATTR name(").
Expected<std::string> insert_before_name(const std::string &src, const std::string &attr) {
  auto k = parse_kernel_text(src);
  if (!k) return k.error();
  std::string out = src;
  out.insert(k->name_pos, attr + " ");
  return out;
}

Expected<std::string> launch_bounds(const std::string &src, const TransformContext &c) {
  auto k = parse_kernel_text(src);
  if (!k) return k.error();
  if (k->has_launch_bounds || k->has_maxnreg)
    return not_applicable("kernel already has __launch_bounds__ or __maxnreg__");
  if (c.launches.empty()) return not_applicable("no captured launch configuration");
  unsigned max_threads = 0;
  for (const LaunchConfig &l : c.launches)
    max_threads = std::max(max_threads, l.threads_per_block());
  if (max_threads == 0 || max_threads > 1024) return not_applicable("captured block size out of range");
  std::string attr = "__launch_bounds__(" + std::to_string(max_threads);
  int min_blocks = int_param(c, "min_blocks", 0);
  if (min_blocks > 0) attr += ", " + std::to_string(min_blocks);
  return insert_before_name(src, attr + ")");
}

Expected<std::string> maxnreg(const std::string &src, const TransformContext &c) {
  auto k = parse_kernel_text(src);
  if (!k) return k.error();
  if (k->has_launch_bounds || k->has_maxnreg)
    return not_applicable("kernel already has __launch_bounds__ or __maxnreg__");
  int cap = int_param(c, "registers", 0);
  if (cap <= 0) {
    auto it = c.metrics.find("registers_per_thread");
    if (it == c.metrics.end()) return not_applicable("register count unknown (no profile)");
    int regs = static_cast<int>(it->second);
    if (regs <= 32) return not_applicable("kernel already uses 32 registers or fewer");
    cap = std::max(32, (regs * 3 / 4) / 8 * 8);
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

Expected<std::string> unroll(const std::string &src, const TransformContext &c) {
  auto k = parse_kernel_text(src);
  if (!k) return k.error();
  int factor = int_param(c, "factor", 4);
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

Expected<std::string> restrict_ldg(const std::string &src, const TransformContext &) {
  auto k = parse_kernel_text(src);
  if (!k) return k.error();
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

Expected<std::string> fast_math(const std::string &src, const TransformContext &) {
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

Expected<std::string> block_size(const std::string &, const TransformContext &) {
  return not_applicable("changing the block size changes the launch configuration, which a variant cannot do");
}

} // namespace

const char *safety_name(Safety s) {
  switch (s) {
  case Safety::Exact:
    return "exact";
  case Safety::LaunchConfig:
    return "launch-config";
  case Safety::Aliasing:
    return "aliasing";
  case Safety::Numerics:
    return "numerics";
  }
  return "?";
}

const std::vector<Transform> &transforms() {
  static const std::vector<Transform> table = {
      {"launch_bounds", Safety::LaunchConfig, "__launch_bounds__(max captured block size)", launch_bounds},
      {"maxnreg", Safety::Exact, "__maxnreg__(cap) below the profiled register count", maxnreg},
      {"unroll", Safety::Exact, "#pragma unroll N on innermost for loops", unroll},
      {"restrict_ldg", Safety::Aliasing, "const __restrict__ on read-only pointer parameters (read-only cache)",
       restrict_ldg},
      {"fast_math", Safety::Numerics, "fast intrinsics (__expf, __sinf, ...) for single-precision math calls",
       fast_math},
      {"block_size", Safety::LaunchConfig, "not mechanical: the launch configuration belongs to the host code",
       block_size},
  };
  return table;
}

const Transform *find_transform(const std::string &id) {
  for (const Transform &t : transforms())
    if (id == t.id) return &t;
  return nullptr;
}

} // namespace kbcc::agent
