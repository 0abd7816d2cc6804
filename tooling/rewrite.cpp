#include "tooling/rewrite.h"

#include <algorithm>
#include <set>

namespace kbcc::tooling {
namespace {

std::string quoted(const std::string &path) {
  std::string out = "\"";
  for (char c : path) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string line_directive(unsigned line, const std::string &path) {
  return "#line " + std::to_string(line) + " " + quoted(path) + "\n";
}

// 1-based line of byte `offset`, counting from `from` (whose line is `line`).
unsigned advance_lines(const std::string &text, uint64_t from, uint64_t offset, unsigned line) {
  return line + static_cast<unsigned>(std::count(text.begin() + from, text.begin() + offset, '\n'));
}

Status check(const std::string &text, const std::vector<Substitution> &subs) {
  uint64_t last_end = 0;
  for (const Substitution &s : subs) {
    if (s.begin > s.end || s.end > text.size()) return make_error("substitution outside the unit", "bad-rewrite");
    if (s.begin < last_end) return make_error("overlapping kernel substitutions", "bad-rewrite");
    if (s.variants.empty()) return make_error("substitution without a variant", "bad-rewrite");
    std::set<int> archs;
    for (const ArchVariant &v : s.variants)
      if (v.arch <= 0 || !archs.insert(v.arch).second)
        return make_error("substitution with a duplicate or invalid arch", "bad-rewrite");
    last_end = s.end;
  }
  return Status::ok();
}

std::string arch_chain(const Substitution &s, const std::string &original, unsigned begin_line,
                       const std::string &path) {
  std::string out = "\n";
  for (size_t i = 0; i < s.variants.size(); ++i) {
    const ArchVariant &v = s.variants[i];
    out += (i == 0 ? "#if" : "#elif");
    out += " defined(__CUDA_ARCH__) && __CUDA_ARCH__ == " + std::to_string(v.arch) + "\n";
    out += line_directive(1, v.name.empty() ? "kbcc-variant" : v.name);
    out += v.source;
    if (v.source.empty() || v.source.back() != '\n') out += '\n';
  }
  out += "#else\n" + line_directive(begin_line, path) + original + "\n#endif\n";
  return out;
}

} // namespace

Expected<std::string> rewrite_unit(const std::string &text, const std::string &path, std::vector<Substitution> subs) {
  std::sort(subs.begin(), subs.end(), [](const auto &a, const auto &b) { return a.begin < b.begin; });
  for (Substitution &s : subs)
    std::sort(s.variants.begin(), s.variants.end(), [](const auto &a, const auto &b) { return a.arch < b.arch; });
  if (auto ok = check(text, subs); !ok) return ok.error();
  std::string out = line_directive(1, path);
  uint64_t pos = 0;
  unsigned line = 1;
  for (const Substitution &s : subs) {
    out.append(text, pos, s.begin - pos);
    unsigned begin_line = advance_lines(text, pos, s.begin, line);
    unsigned end_line = advance_lines(text, s.begin, s.end, begin_line);
    out += arch_chain(s, text.substr(s.begin, s.end - s.begin), begin_line, path);
    out += line_directive(end_line, path);
    pos = s.end;
    line = end_line;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

} // namespace kbcc::tooling
