#include "tooling/kernel_text.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace kbcc::tooling {
namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Offset of the identifier ending just before `pos` (skipping spaces), or npos.
size_t ident_before(const std::string &m, size_t pos, std::string &out) {
  size_t e = pos;
  while (e > 0 && std::isspace(static_cast<unsigned char>(m[e - 1])))
    --e;
  size_t b = e;
  while (b > 0 && ident_char(m[b - 1]))
    --b;
  if (b == e) return std::string::npos;
  out = m.substr(b, e - b);
  return b;
}

// Where the template argument list that ends just before `pos` (spaces
// skipped) begins, as in "k<float, 4>("; `pos` when none ends there.
size_t template_args_begin(const std::string &m, size_t pos) {
  size_t e = pos;
  while (e > 0 && std::isspace(static_cast<unsigned char>(m[e - 1])))
    --e;
  if (e == 0 || m[e - 1] != '>') return pos;
  int depth = 0;
  for (size_t i = e; i-- > 0;) {
    if (m[i] == '>') ++depth;
    if (m[i] == '<' && --depth == 0) return i;
  }
  return pos;
}

size_t find_word(const std::string &m, const std::string &w, size_t from) {
  for (size_t p = m.find(w, from); p != std::string::npos; p = m.find(w, p + 1)) {
    bool left = p == 0 || !ident_char(m[p - 1]);
    bool right = p + w.size() >= m.size() || !ident_char(m[p + w.size()]);
    if (left && right) return p;
  }
  return std::string::npos;
}

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// End of the statement starting at `pos` (exclusive): a braced block, or up
// to and including the next ';' at depth 0 (a nested loop's statement included).
size_t statement_end(const std::string &m, size_t pos) {
  while (pos < m.size() && std::isspace(static_cast<unsigned char>(m[pos])))
    ++pos;
  if (pos >= m.size()) return m.size();
  if (m[pos] == '{') {
    size_t c = match_bracket(m, pos);
    return c == std::string::npos ? m.size() : c + 1;
  }
  for (const char *kw : {"for", "while", "if", "switch"}) {
    std::string w(kw);
    if (m.compare(pos, w.size(), w) == 0 && (pos + w.size() >= m.size() || !ident_char(m[pos + w.size()]))) {
      size_t open = m.find('(', pos);
      size_t close = open == std::string::npos ? open : match_bracket(m, open);
      if (close == std::string::npos) return m.size();
      size_t end = statement_end(m, close + 1);
      if (w == "if") { // an else branch belongs to the statement
        size_t e = end;
        while (e < m.size() && std::isspace(static_cast<unsigned char>(m[e])))
          ++e;
        if (m.compare(e, 4, "else") == 0 && (e + 4 >= m.size() || !ident_char(m[e + 4])))
          return statement_end(m, e + 4);
      }
      return end;
    }
  }
  int depth = 0;
  for (size_t i = pos; i < m.size(); ++i) {
    char c = m[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ';' && depth <= 0) return i + 1;
  }
  return m.size();
}

} // namespace

std::string mask_code(const std::string &src) {
  std::string m = src;
  size_t i = 0, n = src.size();
  auto blank = [&](size_t b, size_t e) {
    for (size_t k = b; k < e && k < n; ++k)
      if (m[k] != '\n') m[k] = ' ';
  };
  while (i < n) {
    if (src.compare(i, 2, "//") == 0) {
      size_t e = src.find('\n', i);
      e = e == std::string::npos ? n : e;
      blank(i, e);
      i = e;
    } else if (src.compare(i, 2, "/*") == 0) {
      size_t e = src.find("*/", i + 2);
      e = e == std::string::npos ? n : e + 2;
      blank(i, e);
      i = e;
    } else if (src[i] == '"' || src[i] == '\'') {
      char q = src[i];
      size_t e = i + 1;
      while (e < n && src[e] != q)
        e += src[e] == '\\' ? 2 : 1;
      blank(i + 1, std::min(e, n));
      i = e + 1;
    } else {
      ++i;
    }
  }
  return m;
}

size_t match_bracket(const std::string &m, size_t open) {
  if (open >= m.size()) return std::string::npos;
  char o = m[open];
  char c = o == '(' ? ')' : o == '{' ? '}' : o == '[' ? ']' : '>';
  int depth = 0;
  for (size_t i = open; i < m.size(); ++i) {
    if (m[i] == o) ++depth;
    if (m[i] == c && --depth == 0) return i;
  }
  return std::string::npos;
}

namespace {

// The first '(' at or after `from` that is not inside a template argument
// list ("k<decltype((unsigned char)0)>(" finds the last one); npos if none.
size_t paren_outside_angles(const std::string &m, size_t from) {
  int depth = 0;
  for (size_t i = from; i < m.size(); ++i) {
    if (m[i] == '<') ++depth;
    if (m[i] == '>' && depth > 0) --depth;
    if (m[i] != '(') continue;
    if (depth == 0) return i;
    i = match_bracket(m, i);
    if (i == std::string::npos) return i;
  }
  return std::string::npos;
}

} // namespace

bool is_explicit_specialization(const std::string &src) {
  std::string m = mask_code(src);
  size_t t = m.find_first_not_of(" \t\r\n");
  if (t == std::string::npos || m.compare(t, 8, "template") != 0) return false;
  size_t open = m.find_first_not_of(" \t\r\n", t + 8);
  if (open == std::string::npos || m[open] != '<') return false;
  size_t close = m.find_first_not_of(" \t\r\n", open + 1);
  return close != std::string::npos && m[close] == '>';
}

std::pair<std::string, std::string> split_qualified(const std::string &name) {
  int depth = 0;
  size_t last = std::string::npos;
  for (size_t i = 0; i + 1 < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (depth == 0 && name[i] == ':' && name[i + 1] == ':') last = i++;
  }
  if (last == std::string::npos) return {"", name};
  return {name.substr(0, last + 2), name.substr(last + 2)};
}

Expected<KernelText> parse_kernel_text(const std::string &src) {
  std::string m = mask_code(src);
  KernelText k;
  k.global_pos = find_word(m, "__global__", 0);
  if (k.global_pos == std::string::npos)
    return make_error("no __global__ function in the kernel source", "kernel-text");
  size_t p = k.global_pos + 10;
  for (;;) {
    size_t open = paren_outside_angles(m, p);
    if (open == std::string::npos) return make_error("kernel parameter list not found", "kernel-text");
    std::string ident;
    size_t name_end = template_args_begin(m, open);
    size_t at = ident_before(m, name_end, ident);
    size_t close = match_bracket(m, open);
    if (close == std::string::npos) return make_error("unbalanced parentheses in kernel", "kernel-text");
    if (ident == "__launch_bounds__" || ident == "__maxnreg__" || ident == "__cluster_dims__" || ident == "__align__" ||
        ident == "__attribute__" || ident == "__declspec") {
      k.has_launch_bounds |= ident == "__launch_bounds__";
      k.has_maxnreg |= ident == "__maxnreg__";
      p = close + 1;
      continue;
    }
    if (at == std::string::npos) return make_error("kernel name not found", "kernel-text");
    k.name = ident;
    k.name_pos = at;
    k.name_end = name_end == open ? at + ident.size() : open;
    k.params_open = open;
    k.params_close = close;
    break;
  }
  k.body_open = m.find('{', k.params_close);
  if (k.body_open == std::string::npos) return make_error("kernel body not found", "kernel-text");
  k.body_close = match_bracket(m, k.body_open);
  if (k.body_close == std::string::npos) return make_error("unbalanced braces in kernel body", "kernel-text");
  return k;
}

std::vector<std::string> split_params(const std::string &src, const KernelText &k) {
  std::string m = mask_code(src);
  std::vector<std::string> out;
  int depth = 0;
  size_t start = k.params_open + 1;
  for (size_t i = start; i < k.params_close; ++i) {
    char c = m[i];
    if (c == '(' || c == '<' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == '>' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(src.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string last = trim(src.substr(start, k.params_close - start));
  if (!last.empty() && last != "void") out.push_back(last);
  return out;
}

std::string param_name(const std::string &decl) {
  std::string d = decl;
  size_t eq = d.find('=');
  if (eq != std::string::npos) d = d.substr(0, eq);
  size_t br = d.find('[');
  if (br != std::string::npos) d = d.substr(0, br);
  std::string ident;
  if (ident_before(d, d.size(), ident) == std::string::npos) return "";
  static const char *not_names[] = {"int",      "float",        "double",   "char",   "short",
                                    "long",     "unsigned",     "signed",   "bool",   "const",
                                    "volatile", "__restrict__", "restrict", "size_t", "void"};
  for (const char *t : not_names)
    if (ident == t) return "";
  // A single-token declaration ("float") has no name.
  size_t tokens = 0;
  std::regex word("[A-Za-z_][A-Za-z_0-9]*");
  for (auto it = std::sregex_iterator(d.begin(), d.end(), word); it != std::sregex_iterator(); ++it)
    ++tokens;
  bool has_ptr = d.find('*') != std::string::npos || d.find('&') != std::string::npos;
  return tokens >= 2 || (tokens == 1 && has_ptr && d.find(ident) > d.find_last_of("*&")) ? ident : "";
}

std::string param_signature(const std::string &decl) {
  std::string d = decl;
  std::string name = param_name(d);
  if (!name.empty()) {
    size_t at = d.rfind(name);
    d.erase(at, name.size());
  }
  d = std::regex_replace(d, std::regex("\\b(__restrict__|restrict|__restrict)\\b"), " ");
  d = std::regex_replace(d, std::regex("\\s+"), " ");
  d = std::regex_replace(d, std::regex(" ?([*&,<>\\[\\]]) ?"), "$1");
  return trim(d);
}

std::vector<Loop> find_loops(const std::string &src, const KernelText &k) {
  std::string m = mask_code(src);
  std::vector<Loop> out;
  for (const char *kw : {"do", "for", "while"}) {
    std::string w(kw);
    for (size_t p = find_word(m, w, k.body_open); p != std::string::npos && p < k.body_close;
         p = find_word(m, w, p + 1)) {
      Loop l;
      l.keyword = w;
      l.pos = p;
      if (w == "do") {
        l.body_begin = p + 2;
        l.body_end = statement_end(m, l.body_begin);
      } else {
        size_t open = m.find_first_not_of(" \t\r\n", p + w.size());
        if (open == std::string::npos || m[open] != '(') continue;
        size_t close = match_bracket(m, open);
        if (close == std::string::npos) continue;
        // "while (...);" right after a do-body is the tail of a do loop.
        if (w == "while") {
          bool tail = false;
          for (const Loop &d : out)
            if (d.keyword == "do" && d.body_end <= p && m.find_first_not_of(" \t\r\n", d.body_end) == p) tail = true;
          if (tail) continue;
        }
        l.header_open = open;
        l.header_close = close;
        l.header = src.substr(open + 1, close - open - 1);
        l.body_begin = close + 1;
        l.body_end = statement_end(m, l.body_begin);
      }
      out.push_back(l);
    }
  }
  std::sort(out.begin(), out.end(), [](const Loop &a, const Loop &b) { return a.pos < b.pos; });
  return out;
}

bool has_identifier(const std::string &text, const std::string &ident) {
  if (ident.empty()) return false;
  std::string m = mask_code(text);
  for (size_t p = find_word(m, ident, 0); p != std::string::npos; p = find_word(m, ident, p + 1)) {
    size_t before = p == 0 ? std::string::npos : m.find_last_not_of(" \t\r\n", p - 1);
    bool member =
        before != std::string::npos && (m[before] == '.' || (m[before] == '>' && before > 0 && m[before - 1] == '-'));
    if (!member) return true;
  }
  return false;
}

} // namespace kbcc::tooling
