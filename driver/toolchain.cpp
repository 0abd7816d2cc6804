#include "driver/toolchain.h"

#include "support/fs.h"
#include "support/hash.h"
#include "support/process.h"

#include <filesystem>
#include <regex>
#include <sys/stat.h>

namespace kbcc::driver {
namespace {

std::string version_line(const std::string &out) {
  size_t pos = out.find("Cuda compilation tools");
  if (pos == std::string::npos) return "";
  return out.substr(pos, out.find('\n', pos) - pos);
}

std::string cccl_version(const std::string &nvcc) {
  std::filesystem::path root = std::filesystem::path(nvcc).parent_path().parent_path();
  for (const char *rel : {"include/cccl/cuda/std/__cccl/version.h", "include/cuda/std/__cccl/version.h",
                          "targets/x86_64-linux/include/cccl/cuda/std/__cccl/version.h"}) {
    auto text = read_file((root / rel).string());
    if (!text) continue;
    std::smatch m;
    static const std::regex re("#\\s*define\\s+CCCL_VERSION\\s+([0-9]+)");
    if (std::regex_search(*text, m, re)) return m[1];
  }
  return "unknown";
}

} // namespace

Expected<std::string> toolchain_id(const std::string &nvcc, const std::string &kbcc_dir) {
  struct stat st;
  if (stat(nvcc.c_str(), &st) != 0) return make_error("cannot stat " + nvcc, "toolchain");
  std::string key = hash_hex(nvcc + "\n" + std::to_string(st.st_size) + "\n" + std::to_string(st.st_mtime));
  std::string cache = kbcc_dir + "/toolchain/" + key;
  if (auto cached = read_file(cache); cached && !cached->empty()) return *cached;
  auto r = run_process({nvcc, "--version"});
  if (!r || r->exit_code != 0) return make_error("`" + nvcc + " --version` failed", "toolchain");
  std::string line = version_line(r->out);
  if (line.empty()) return make_error("`" + nvcc + " --version` printed no version line", "toolchain");
  std::string id = line + "; cccl " + cccl_version(nvcc);
  (void)write_file_atomic(cache, id);
  return id;
}

} // namespace kbcc::driver
