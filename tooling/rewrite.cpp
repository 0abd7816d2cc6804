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

Status check_archs(const Substitution &s) {
  if (s.variants.empty()) return make_error("substitution without a variant", "bad-rewrite");
  std::set<int> archs;
  for (const ArchVariant &v : s.variants)
    if (v.arch <= 0 || !archs.insert(v.arch).second)
      return make_error("substitution with a duplicate or invalid arch", "bad-rewrite");
  return Status::ok();
}

// One edit of the unit, whichever kind.
struct Edit {
  uint64_t begin = 0, end = 0;
  const Substitution *substitution = nullptr;
  const Insertion *insertion = nullptr;
  const Replacement *replacement = nullptr;
};

Expected<std::vector<Edit>> ordered_edits(const std::string &text, const UnitEdits &e) {
  std::vector<Edit> edits;
  for (const Substitution &s : e.substitutions) {
    if (auto ok = check_archs(s); !ok) return ok.error();
    if (s.specialization && s.begin != s.end) return make_error("specialization that replaces text", "bad-rewrite");
    edits.push_back({s.begin, s.end, &s, nullptr, nullptr});
  }
  for (const Insertion &i : e.insertions)
    edits.push_back({i.at, i.at, nullptr, &i, nullptr});
  for (const Replacement &r : e.replacements)
    edits.push_back({r.begin, r.end, nullptr, nullptr, &r});
  std::stable_sort(edits.begin(), edits.end(), [](const Edit &a, const Edit &b) {
    return a.begin != b.begin ? a.begin < b.begin : (a.end - a.begin) < (b.end - b.begin);
  });
  uint64_t last_end = 0;
  for (const Edit &x : edits) {
    if (x.begin > x.end || x.end > text.size()) return make_error("edit outside the unit", "bad-rewrite");
    if (x.begin < last_end) return make_error("overlapping edits of the unit", "bad-rewrite");
    last_end = x.end;
  }
  return edits;
}

std::string arch_chain(const Substitution &s, const std::string &original, unsigned begin_line,
                       const std::string &path) {
  std::string out = "\n";
  for (size_t i = 0; i < s.variants.size(); ++i) {
    const ArchVariant &v = s.variants[i];
    out += (i == 0 ? "#if" : "#elif");
    out += " defined(__CUDA_ARCH__) && __CUDA_ARCH__ == " + std::to_string(v.arch) + "\n";
    out += variant_text(v.name.empty() ? "kbcc-variant" : v.name, v.source);
  }
  if (s.specialization) return out + "#endif\n";
  out += "#else\n" + line_directive(begin_line, path) + original + "\n#endif\n";
  return out;
}

} // namespace

std::string variant_text(const std::string &name, const std::string &source) {
  std::string out =
      "#pragma nv_diagnostic push\n#pragma nv_diag_suppress 177, 550\n" + line_directive(1, name) + source;
  if (source.empty() || source.back() != '\n') out += '\n';
  return out + "#pragma nv_diagnostic pop\n";
}

Expected<std::string> rewrite_unit(const std::string &text, const std::string &path, UnitEdits e) {
  for (Substitution &s : e.substitutions)
    std::sort(s.variants.begin(), s.variants.end(), [](const auto &a, const auto &b) { return a.arch < b.arch; });
  auto edits = ordered_edits(text, e);
  if (!edits) return edits.error();
  std::string out = line_directive(1, path);
  uint64_t pos = 0;
  unsigned line = 1;
  for (const Edit &x : *edits) {
    out.append(text, pos, x.begin - pos);
    unsigned begin_line = advance_lines(text, pos, x.begin, line);
    unsigned end_line = advance_lines(text, x.begin, x.end, begin_line);
    std::string replaced = text.substr(x.begin, x.end - x.begin);
    if (x.substitution) {
      out += arch_chain(*x.substitution, replaced, begin_line, path);
      out += line_directive(end_line, path);
    } else if (x.insertion) {
      out += "\n" + x.insertion->text;
      if (out.back() != '\n') out += '\n';
      out += line_directive(end_line, path);
    } else {
      out += x.replacement->text + std::string(end_line - begin_line, '\n');
    }
    pos = x.end;
    line = end_line;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

Expected<std::string> rewrite_unit(const std::string &text, const std::string &path, std::vector<Substitution> subs) {
  UnitEdits e;
  e.substitutions = std::move(subs);
  return rewrite_unit(text, path, std::move(e));
}

} // namespace kbcc::tooling
