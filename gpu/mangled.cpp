// Best-effort reader of Itanium-mangled kernel names: enough to know the
// pointee type of each pointer parameter (float*, const __half*, ...).
#include "gpu/analysis.h"

#include <cctype>
#include <map>
#include <optional>

namespace kbcc::gpu {
namespace {

// A parsed type: its spelling and, for pointers, the pointee's spelling.
struct Type {
  std::string text;
  std::string pointee; // non-empty only for pointers
};

class Demangler {
public:
  explicit Demangler(const std::string &s) : s_(s) {}

  std::vector<std::string> run() {
    if (s_.rfind("_Z", 0) != 0) return {};
    pos_ = 2;
    bool templated = false;
    if (!name(templated)) return {};
    if (templated && !type()) return {}; // return type of a function template
    std::vector<std::string> out;
    while (pos_ < s_.size() && s_[pos_] != '.') {
      auto t = type();
      if (!t) return {};
      if (t->text == "void" && out.empty() && pos_ >= s_.size()) break; // f(void)
      out.push_back(builtin(t->pointee) ? t->pointee : "");
    }
    return out;
  }

private:
  const std::string &s_;
  size_t pos_ = 0;
  std::vector<Type> subs_, template_args_;

  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) return ++pos_, true;
    return false;
  }
  char peek(size_t k = 0) const { return pos_ + k < s_.size() ? s_[pos_ + k] : '\0'; }

  static bool builtin(const std::string &t) {
    static const char *names[] = {"bool",  "char",           "signed char", "unsigned char",
                                  "short", "unsigned short", "int",         "unsigned int",
                                  "long",  "unsigned long",  "long long",   "unsigned long long",
                                  "float", "double",         "__half",      "__nv_bfloat16"};
    std::string base = t.rfind("const ", 0) == 0 ? t.substr(6) : t;
    for (const char *n : names)
      if (base == n) return true;
    return false;
  }

  std::optional<std::string> source_name() {
    if (!std::isdigit(static_cast<unsigned char>(peek()))) return std::nullopt;
    size_t n = 0;
    while (std::isdigit(static_cast<unsigned char>(peek())))
      n = n * 10 + (s_[pos_++] - '0');
    if (pos_ + n > s_.size()) return std::nullopt;
    std::string id = s_.substr(pos_, n);
    pos_ += n;
    return id;
  }

  // <name>: unscoped or nested, optionally with template args.
  bool name(bool &templated) {
    if (eat('N')) {
      while (peek() == 'K' || peek() == 'V' || peek() == 'r')
        ++pos_;
      std::string prefix;
      while (!eat('E')) {
        if (peek() == 'I') {
          subs_.push_back({prefix, ""});
          if (!template_args()) return false;
          templated = true;
          prefix += "<>";
        } else if (peek() == 'S') {
          auto t = substitution();
          if (!t) return false;
          prefix = t->text;
          templated = false;
          continue;
        } else {
          if (!prefix.empty()) subs_.push_back({prefix, ""});
          auto id = source_name();
          if (!id) return false;
          prefix += (prefix.empty() ? "" : "::") + *id;
          templated = false;
        }
        if (pos_ >= s_.size()) return false;
      }
      return true;
    }
    auto id = source_name();
    if (!id) return false;
    if (peek() == 'I') {
      subs_.push_back({*id, ""});
      if (!template_args()) return false;
      templated = true;
    }
    return true;
  }

  bool template_args() {
    if (!eat('I')) return false;
    std::vector<Type> args;
    while (!eat('E')) {
      if (eat('L')) { // literal: skip to its E
        while (pos_ < s_.size() && s_[pos_] != 'E')
          ++pos_;
        if (!eat('E')) return false;
        args.push_back({"literal", ""});
      } else if (eat('X')) {
        int depth = 1;
        while (pos_ < s_.size() && depth)
          if (s_[pos_++] == 'E') --depth;
        args.push_back({"expr", ""});
      } else if (eat('J')) { // pack
        while (!eat('E')) {
          auto t = type();
          if (!t) return false;
        }
        args.push_back({"pack", ""});
      } else {
        auto t = type();
        if (!t) return false;
        args.push_back(*t);
      }
      if (pos_ >= s_.size()) return false;
    }
    template_args_ = args;
    return true;
  }

  std::optional<Type> substitution() {
    if (!eat('S')) return std::nullopt;
    static const std::map<char, std::string> std_abbrev = {
        {'t', "std"},          {'a', "std::allocator"}, {'b', "std::basic_string"}, {'s', "std::string"},
        {'i', "std::istream"}, {'o', "std::ostream"},   {'d', "std::iostream"}};
    if (auto it = std_abbrev.find(peek()); it != std_abbrev.end()) {
      ++pos_;
      if (it->first == 't') { // St <unqualified-name>
        auto id = source_name();
        if (!id) return std::nullopt;
        Type t{"std::" + *id, ""};
        subs_.push_back(t);
        return t;
      }
      return Type{it->second, ""};
    }
    size_t index = 0;
    if (!eat('_')) {
      size_t seq = 0;
      while (std::isalnum(static_cast<unsigned char>(peek()))) {
        char c = s_[pos_++];
        seq = seq * 36 + (std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : c - 'A' + 10);
      }
      if (!eat('_')) return std::nullopt;
      index = seq + 1;
    }
    if (index >= subs_.size()) return std::nullopt;
    return subs_[index];
  }

  std::optional<Type> type() {
    static const std::map<char, std::string> builtins = {{'v', "void"},
                                                         {'b', "bool"},
                                                         {'c', "char"},
                                                         {'a', "signed char"},
                                                         {'h', "unsigned char"},
                                                         {'s', "short"},
                                                         {'t', "unsigned short"},
                                                         {'i', "int"},
                                                         {'j', "unsigned int"},
                                                         {'l', "long"},
                                                         {'m', "unsigned long"},
                                                         {'x', "long long"},
                                                         {'y', "unsigned long long"},
                                                         {'n', "__int128"},
                                                         {'o', "unsigned __int128"},
                                                         {'f', "float"},
                                                         {'d', "double"},
                                                         {'e', "long double"},
                                                         {'g', "__float128"},
                                                         {'z', "..."},
                                                         {'w', "wchar_t"}};
    char c = peek();
    if (auto it = builtins.find(c); it != builtins.end()) {
      ++pos_;
      return Type{it->second, ""};
    }
    if (c == 'D') { // Dh (half), DF16_, Dn ...
      pos_ += 2;
      if (s_[pos_ - 1] == 'F') {
        while (pos_ < s_.size() && s_[pos_] != '_')
          ++pos_;
        ++pos_;
      }
      return Type{"builtin-ext", ""};
    }
    if (c == 'P' || c == 'R' || c == 'O') {
      ++pos_;
      auto inner = type();
      if (!inner) return std::nullopt;
      Type t{inner->text + (c == 'P' ? "*" : "&"), c == 'P' ? inner->text : ""};
      subs_.push_back(t);
      return t;
    }
    if (c == 'K' || c == 'V' || c == 'r') {
      std::string qual;
      while (peek() == 'K' || peek() == 'V' || peek() == 'r')
        qual += s_[pos_++] == 'K' ? "const " : "";
      auto inner = type();
      if (!inner) return std::nullopt;
      Type t{qual + inner->text, ""};
      subs_.push_back(t);
      return t;
    }
    if (c == 'T') { // template parameter
      ++pos_;
      size_t index = 0;
      if (!eat('_')) {
        while (std::isdigit(static_cast<unsigned char>(peek())))
          index = index * 10 + (s_[pos_++] - '0');
        if (!eat('_')) return std::nullopt;
        ++index;
      }
      if (index >= template_args_.size()) return std::nullopt;
      Type t = template_args_[index];
      subs_.push_back(t);
      return t;
    }
    if (c == 'S') {
      auto t = substitution();
      if (!t) return std::nullopt;
      if (peek() == 'I') {
        auto saved = template_args_;
        if (!template_args()) return std::nullopt;
        template_args_ = saved;
        Type tt{t->text + "<>", ""};
        subs_.push_back(tt);
        return tt;
      }
      return t;
    }
    if (c == 'N' || std::isdigit(static_cast<unsigned char>(c))) {
      auto saved = template_args_;
      bool templated = false;
      size_t start = pos_;
      if (!name(templated)) return std::nullopt;
      template_args_ = saved;
      std::string text = s_.substr(start, pos_ - start);
      if (text == "6__half") text = "__half";
      if (text == "13__nv_bfloat16") text = "__nv_bfloat16";
      Type t{text, ""};
      subs_.push_back(t);
      return t;
    }
    if (c == 'A') { // array: A <number> _ <type>
      ++pos_;
      while (std::isdigit(static_cast<unsigned char>(peek())))
        ++pos_;
      if (!eat('_')) return std::nullopt;
      auto inner = type();
      if (!inner) return std::nullopt;
      Type t{inner->text + "[]", ""};
      subs_.push_back(t);
      return t;
    }
    return std::nullopt;
  }
};

} // namespace

std::vector<std::string> mangled_pointee_types(const std::string &mangled) { return Demangler(mangled).run(); }

} // namespace kbcc::gpu
