#include "driver/depfile.h"

#include "support/fs.h"

#include <algorithm>
#include <set>
#include <sstream>

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

std::string drop_depfile_entries(const std::string &text, const std::vector<std::string> &names) {
  std::set<std::string> drop;
  for (const auto &n : names)
    drop.insert(escape_depfile_path(n));
  std::vector<std::string> kept;
  std::istringstream in(text);
  std::string line;
  bool skip_blank = false;
  while (std::getline(in, line)) {
    if (skip_blank && line.empty()) {
      skip_blank = false;
      continue;
    }
    skip_blank = false;
    bool continued = line.size() >= 2 && line.compare(line.size() - 2, 2, " \\") == 0;
    std::string body = continued ? line.substr(0, line.size() - 2) : line;
    std::string entry = body.substr(std::min(body.find_first_not_of(' '), body.size()));
    if (!entry.empty() && entry.back() == ':' && drop.count(entry.substr(0, entry.size() - 1))) {
      skip_blank = true; // -MP phony rule "name:" and its blank line
      continue;
    }
    if (entry.empty() || body[0] != ' ' || !drop.count(entry)) {
      kept.push_back(line);
      continue;
    }
    // A dropped last prerequisite: the previous line no longer continues.
    if (!continued && !kept.empty() && kept.back().size() >= 2 &&
        kept.back().compare(kept.back().size() - 2, 2, " \\") == 0)
      kept.back().resize(kept.back().size() - 2);
  }
  std::string out;
  for (const auto &l : kept)
    out += l + "\n";
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  bool ends_blank = text.size() >= 2 && text.compare(text.size() - 2, 2, "\n\n") == 0;
  while (!ends_blank && out.size() >= 2 && out.compare(out.size() - 2, 2, "\n\n") == 0)
    out.pop_back();
  return out;
}

Status fix_depfile(const std::string &path, const std::string &temp_source, const std::string &user_source,
                   const std::string &temp_dir, const std::string &user_dir,
                   const std::vector<std::string> &pseudo_names) {
  auto text = read_file(path);
  if (!text) return text.error();
  std::string fixed =
      drop_depfile_entries(rewrite_depfile_text(*text, temp_source, user_source, temp_dir, user_dir), pseudo_names);
  if (fixed == *text) return Status::ok();
  return write_file_atomic(path, fixed);
}

} // namespace kbcc::driver
