#include "driver/depfile.h"

#include "support/fs.h"

namespace kbcc::driver {
namespace {

std::string replace_all(std::string text, const std::string &from, const std::string &to) {
  if (from.empty()) return text;
  size_t pos = 0;
  while ((pos = text.find(from, pos)) != std::string::npos) {
    text.replace(pos, from.size(), to);
    pos += to.size();
  }
  return text;
}

} // namespace

std::string escape_depfile_path(const std::string &path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

std::string rewrite_depfile_text(const std::string &text, const std::string &temp_source,
                                 const std::string &user_source, const std::string &temp_dir,
                                 const std::string &user_dir) {
  std::string out = replace_all(text, escape_depfile_path(temp_source), escape_depfile_path(user_source));
  std::string from_dir = escape_depfile_path(temp_dir) + "/";
  std::string to_dir = user_dir.empty() || user_dir == "." ? "" : escape_depfile_path(user_dir) + "/";
  return replace_all(out, from_dir, to_dir);
}

Status fix_depfile(const std::string &path, const std::string &temp_source, const std::string &user_source,
                   const std::string &temp_dir, const std::string &user_dir) {
  auto text = read_file(path);
  if (!text) return text.error();
  std::string fixed = rewrite_depfile_text(*text, temp_source, user_source, temp_dir, user_dir);
  if (fixed == *text) return Status::ok();
  return write_file_atomic(path, fixed);
}

} // namespace kbcc::driver
