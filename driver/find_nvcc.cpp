#include "driver/find_nvcc.h"

#include <cstdlib>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace kbcc::driver {
namespace {

bool is_executable_file(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string absolute(const std::string &path) {
  if (path.empty() || path[0] == '/') return path;
  char buf[4096];
  if (!getcwd(buf, sizeof buf)) return path;
  return std::string(buf) + "/" + path;
}

// Checks one candidate file; returns the reason it is unusable, or "".
std::string reject_reason(const std::string &path, const NvccSearch &s) {
  if (!is_executable_file(path)) return "not an executable file";
  if (is_same_executable(path, s.self_exe)) return "is kbcc itself";
  if (!s.sibling_exe.empty() && is_same_executable(path, s.sibling_exe)) return "is kbcc itself";
  return "";
}

struct Attempt {
  std::string place, why;
};

std::string describe(const std::vector<Attempt> &tried) {
  std::string msg = "cannot find the real nvcc; looked at:";
  for (const auto &a : tried)
    msg += "\n  " + a.place + ": " + a.why;
  msg += "\nSet KBCC_NVCC to the real nvcc, or put it in PATH, or set CUDA_HOME.";
  return msg;
}

} // namespace

NvccSearch NvccSearch::current(const std::string &configured, const std::string &launcher) {
  NvccSearch s;
  s.configured = configured;
  s.launcher = launcher;
  if (const char *v = getenv("CUDA_HOME")) s.cuda_home = v;
  if (const char *v = getenv("PATH")) s.path = v;
  s.self_exe = "/proc/self/exe";
  std::error_code ec;
  auto self = std::filesystem::read_symlink(s.self_exe, ec);
  if (!ec) s.sibling_exe = sibling_executable(self.string());
  return s;
}

std::string sibling_executable(const std::string &self) {
  std::filesystem::path p(self);
  std::string name = p.filename().string();
  if (name == "kbcc") return (p.parent_path() / "kbcc-full").string();
  if (name == "kbcc-full") return (p.parent_path() / "kbcc").string();
  return "";
}

bool is_same_executable(const std::string &path, const std::string &self_exe) {
  struct stat a, b;
  if (stat(path.c_str(), &a) != 0 || stat(self_exe.c_str(), &b) != 0) return false;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

Expected<std::string> find_nvcc(const NvccSearch &s) {
  std::vector<Attempt> tried;
  auto try_file = [&](const std::string &place, const std::string &path) -> bool {
    std::string why = reject_reason(path, s);
    if (why.empty()) return true;
    tried.push_back({place + " (" + path + ")", why});
    return false;
  };
  if (s.configured.empty())
    tried.push_back({"KBCC_NVCC", "not set"});
  else if (try_file("KBCC_NVCC", s.configured))
    return absolute(s.configured);

  if (s.launcher.empty())
    tried.push_back({"launcher argument", "none (compiler form)"});
  else if (s.launcher.find('/') != std::string::npos) {
    if (try_file("launcher argument", s.launcher)) return absolute(s.launcher);
  } else {
    tried.push_back({"launcher argument", "'" + s.launcher + "' has no directory; searched in PATH below"});
  }

  if (s.cuda_home.empty())
    tried.push_back({"$CUDA_HOME/bin/nvcc", "CUDA_HOME not set"});
  else if (try_file("$CUDA_HOME/bin/nvcc", s.cuda_home + "/bin/nvcc"))
    return absolute(s.cuda_home + "/bin/nvcc");

  std::string name = !s.launcher.empty() && s.launcher.find('/') == std::string::npos ? s.launcher : "nvcc";
  bool any_dir = false;
  size_t start = 0;
  while (start <= s.path.size()) {
    size_t colon = s.path.find(':', start);
    std::string dir = s.path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    start = colon == std::string::npos ? s.path.size() + 1 : colon + 1;
    if (dir.empty()) continue;
    any_dir = true;
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), F_OK) != 0) continue;
    if (try_file("PATH", candidate)) return absolute(candidate);
  }
  tried.push_back({"PATH", any_dir ? "no other '" + name + "' found" : "empty"});
  return make_error(describe(tried), "no-nvcc");
}

} // namespace kbcc::driver
