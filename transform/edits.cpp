#include "transform/edits.h"

#include <algorithm>
#include <cctype>

namespace kbcc::transform {

void Edits::replace(size_t begin, size_t end, std::string text) {
  edits_.push_back({begin, end, edits_.size(), std::move(text)});
}

Expected<std::string> Edits::apply(const std::string &text) const {
  std::vector<Edit> sorted = edits_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Edit &a, const Edit &b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    return (a.end - a.begin) < (b.end - b.begin) || ((a.end - a.begin) == (b.end - b.begin) && a.order < b.order);
  });
  std::string out;
  size_t pos = 0;
  for (const Edit &e : sorted) {
    if (e.begin > e.end || e.end > text.size()) return make_error("edit outside the kernel's text", "bad-edit");
    if (e.begin < pos) return make_error("overlapping edits of the kernel's text", "bad-edit");
    out.append(text, pos, e.begin - pos);
    out += e.text;
    pos = e.end;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

size_t past_semicolon(const std::string &text, size_t end) {
  size_t i = end;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
      ++i;
    } else if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) return end;
    } else if (text.compare(i, 2, "/*") == 0) {
      i = text.find("*/", i);
      if (i == std::string::npos) return end;
      i += 2;
    } else {
      return text[i] == ';' ? i + 1 : end;
    }
  }
  return end;
}

void identifiers(const std::string &text, std::set<std::string> &out) {
  for (size_t i = 0; i < text.size();) {
    if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
      size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
        ++j;
      out.insert(text.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
}

} // namespace kbcc::transform
