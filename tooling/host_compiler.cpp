#include "tooling/host_compiler.h"

#include "support/fs.h"
#include "support/hash.h"
#include "support/process.h"

#include <filesystem>
#include <sstream>

namespace kbcc::tooling {
namespace {

constexpr const char *kCacheFormat = "kbcc-host-includes-v1";

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The cache file of `compiler`: named after its path, size and mtime.
std::string cache_file(const std::string &compiler, const std::string &cache_dir) {
  std::error_code ec;
  Hasher h;
  h.field(kCacheFormat);
  h.field(compiler);
  h.field(std::to_string(std::filesystem::file_size(compiler, ec)));
  auto t = std::filesystem::last_write_time(compiler, ec);
  h.field(std::to_string(ec ? 0 : t.time_since_epoch().count()));
  return cache_dir + "/" + h.hex() + ".txt";
}

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!trim(line).empty()) out.push_back(trim(line));
  return out;
}

} // namespace

std::string resolve_host_compiler(const std::string &ccbin) {
  std::error_code ec;
  if (ccbin.empty()) return find_in_path("gcc").value_or("");
  if (std::filesystem::is_directory(ccbin, ec)) {
    std::string gcc = ccbin + "/gcc";
    return file_exists(gcc) ? real_path(gcc) : std::string();
  }
  if (ccbin.find('/') == std::string::npos) return find_in_path(ccbin).value_or("");
  return file_exists(ccbin) ? real_path(ccbin) : std::string();
}

std::vector<std::string> parse_search_list(const std::string &verbose_output) {
  std::vector<std::string> out;
  bool in_list = false;
  for (const std::string &line : lines_of(verbose_output)) {
    if (line.rfind("#include <...> search starts here:", 0) == 0) {
      in_list = true;
      continue;
    }
    if (!in_list) continue;
    if (line.rfind("End of search list.", 0) == 0) break;
    std::string dir = line;
    if (auto fw = dir.find(" (framework directory)"); fw != std::string::npos) dir.erase(fw);
    out.push_back(std::filesystem::path(dir).lexically_normal().string());
  }
  return out;
}

Expected<std::vector<std::string>> host_include_dirs(const std::string &compiler, const std::string &cache_dir) {
  if (compiler.empty()) return make_error("no host compiler found (nvcc's default is gcc in PATH)", "no-host-compiler");
  std::string cached = cache_dir.empty() ? std::string() : cache_file(compiler, cache_dir);
  if (!cached.empty())
    if (auto text = read_file(cached)) return lines_of(*text);
  ProcessOptions po;
  po.timeout = std::chrono::milliseconds(30000);
  po.env_set = {{"LC_ALL", "C"}};
  auto r = run_process({compiler, "-E", "-x", "c++", "-", "-v"}, po);
  if (!r) return make_error(compiler + ": cannot run the host compiler: " + r.error().message, "host-compiler");
  std::vector<std::string> dirs = parse_search_list(r->err + r->out);
  if (r->exit_code != 0 || dirs.empty())
    return make_error(compiler + " -E -x c++ - -v printed no include search list (exit " +
                          std::to_string(r->exit_code) + ")",
                      "host-compiler");
  if (!cached.empty()) {
    std::string text;
    for (const std::string &d : dirs)
      text += d + "\n";
    (void)write_file_atomic(cached, text); // only a cache: a failed write costs one more run
  }
  return dirs;
}

} // namespace kbcc::tooling
