// Device names of entities declared in an anonymous namespace. nvcc mangles
// such a namespace as `_GLOBAL__N__<crc>_<n>_<file>_<tag>`, where <crc> is
// the CRC-32 of the unit's real path, <file> the unit's file name with every
// character but letters and digits written `_` (n characters) and <tag> is
// derived from the unit's first external function (the CRC-32 of its
// mangled name, or `main`); clang mangles it as `_GLOBAL__N_1`. A device
// variable of internal linkage is also put in `_INTERNAL_<crc>_<n>_<file>_<tag>`.
// None of them can be matched across compiles as it is: the registry's
// names come from clang, and kbcc compiles a rewritten unit, and every
// candidate, from other paths and with other functions.
//
// The file-keyed form writes the namespaces `_GLOBAL__N__<n>_<file>` and
// `_INTERNAL__<n>_<file>`: the same for nvcc's compile of a unit and of
// kbcc's rewrite of it (which keeps the file name), and derivable from
// clang's name and the unit's file name. It is how the registry and the
// captures name such kernels. The unit-free form writes them `_GLOBAL__N_1`
// (as clang does) and `_INTERNAL_1`: it finds a kernel or variable in one
// module whatever file the module was compiled from. Header-only: the
// capture library, the runner and the extraction all use it.
#pragma once

#include <cctype>
#include <optional>
#include <string>
#include <string_view>

namespace kbcc::gpu {
namespace device_names_detail {

inline constexpr std::string_view kGlobal = "_GLOBAL__N_", kInternal = "_INTERNAL_";

// One unit-specific component of a mangled name: the byte range of its
// <length><identifier>, which kind it is and, but for clang's, its file part.
struct Component {
  size_t begin = 0, end = 0;
  bool internal = false;
  std::string file;
};

// Reads a decimal number at `s[pos]`, advancing `pos`; nullopt if none.
inline std::optional<size_t> number_at(std::string_view s, size_t &pos) {
  size_t start = pos, n = 0;
  while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])) && pos - start < 6)
    n = n * 10 + static_cast<size_t>(s[pos++] - '0');
  if (pos == start) return std::nullopt;
  return n;
}

// Advances `pos` over lowercase hex digits; whether there was one.
inline bool hex_at(std::string_view s, size_t &pos) {
  size_t start = pos;
  while (pos < s.size() && std::isxdigit(static_cast<unsigned char>(s[pos])) &&
         !std::isupper(static_cast<unsigned char>(s[pos])))
    ++pos;
  return pos > start;
}

// Whether `rest` is `<n>_<file>` (the file-keyed form's), setting `file`.
inline bool keyed_part(std::string_view rest, std::string &file) {
  size_t pos = 0;
  auto n = number_at(rest, pos);
  if (!n || pos >= rest.size() || rest[pos] != '_' || pos + 1 + *n != rest.size()) return false;
  file = std::string(rest.substr(pos + 1));
  return true;
}

// Whether `rest` is `<crc>_<n>_<file>_<tag>` (nvcc's), setting `file`.
inline bool nvcc_part(std::string_view rest, std::string &file) {
  size_t pos = 0;
  if (!hex_at(rest, pos) || pos >= rest.size() || rest[pos++] != '_') return false;
  auto n = number_at(rest, pos);
  if (!n || pos >= rest.size() || rest[pos++] != '_' || pos + *n + 1 >= rest.size()) return false;
  file = std::string(rest.substr(pos, *n));
  return rest[pos + *n] == '_'; // a non-empty tag follows
}

// Whether `id` (a whole identifier) is a unit-specific component in one of
// the forms above; sets `c.internal` and `c.file` (empty for clang's).
inline bool unit_identifier(std::string_view id, Component &c) {
  c.file.clear();
  c.internal = id.substr(0, kInternal.size()) == kInternal;
  if (id == "_GLOBAL__N_1" || id == "_INTERNAL_1") return true;
  if (!c.internal && id.substr(0, kGlobal.size() + 1) != "_GLOBAL__N__") return false;
  std::string_view rest = id.substr(c.internal ? kInternal.size() : kGlobal.size() + 1);
  if (c.internal && !rest.empty() && rest[0] == '_') return keyed_part(rest.substr(1), c.file);
  return keyed_part(rest, c.file) || nvcc_part(rest, c.file);
}

// The first unit-specific component at or after `from`, or nullopt. The
// length digits before a mark are read from their last one back, since the
// identifier before them may end in digits.
inline std::optional<Component> find_component(std::string_view s, size_t from) {
  for (size_t at = from; at < s.size(); ++at) {
    if (s.compare(at, kGlobal.size(), kGlobal) != 0 && s.compare(at, kInternal.size(), kInternal) != 0) continue;
    size_t length = 0, scale = 1;
    for (size_t d = at; d > from && std::isdigit(static_cast<unsigned char>(s[d - 1])) && at - d < 4; --d) {
      length += static_cast<size_t>(s[d - 1] - '0') * scale;
      scale *= 10;
      Component c;
      if (s[d - 1] != '0' && at + length <= s.size() && unit_identifier(s.substr(at, length), c)) {
        c.begin = d - 1;
        c.end = at + length;
        return c;
      }
    }
  }
  return std::nullopt;
}

// `name` with each unit-specific component replaced by what
// `write(component)` returns (an identifier; its length is prefixed here).
template <typename Write> std::string rewrite_components(std::string_view name, Write write) {
  std::string out;
  size_t done = 0;
  for (auto c = find_component(name, 0); c; c = find_component(name, done)) {
    std::string id = write(*c);
    out.append(name.substr(done, c->begin - done)).append(std::to_string(id.size())).append(id);
    done = c->end;
  }
  return out.append(name.substr(done));
}

} // namespace device_names_detail

// The file part of the namespace of a unit whose path is `path`, as nvcc
// writes it: the file name, every character but a letter or digit `_`.
inline std::string unit_file_part(std::string_view path) {
  std::string file(path.substr(path.find_last_of('/') == std::string_view::npos ? 0 : path.find_last_of('/') + 1));
  for (char &c : file)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return file;
}

// `name` in the file-keyed form. nvcc's components keep their own file part;
// clang's, which name none, take `unit_path`'s (unchanged where it is empty).
// Names without a unit-specific component are returned as they are.
inline std::string file_keyed_name(std::string_view name, std::string_view unit_path = {}) {
  return device_names_detail::rewrite_components(name, [&](const device_names_detail::Component &c) {
    std::string mark = c.internal ? "_INTERNAL__" : "_GLOBAL__N__";
    if (c.file.empty() && unit_path.empty()) return std::string(c.internal ? "_INTERNAL_1" : "_GLOBAL__N_1");
    std::string file = c.file.empty() ? unit_file_part(unit_path) : c.file;
    return mark + std::to_string(file.size()) + "_" + file;
  });
}

// `name` in the unit-free form: every anonymous namespace `_GLOBAL__N_1`,
// every internal-linkage prefix `_INTERNAL_1`.
inline std::string unit_free_name(std::string_view name) {
  return device_names_detail::rewrite_components(name, [](const device_names_detail::Component &c) {
    return std::string(c.internal ? "_INTERNAL_1" : "_GLOBAL__N_1");
  });
}

// Whether `name` has a unit-specific component.
inline bool has_unit_component(std::string_view name) {
  return device_names_detail::find_component(name, 0).has_value();
}

} // namespace kbcc::gpu
