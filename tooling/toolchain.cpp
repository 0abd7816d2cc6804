#include "tooling/toolchain.h"

#include "support/fs.h"
#include "support/process.h"

#include <filesystem>

namespace kbcc::tooling {
namespace {

std::string release_line(const std::string &version_text) {
  auto p = version_text.find("release");
  if (p == std::string::npos) return version_text;
  auto b = version_text.rfind('\n', p);
  auto e = version_text.find('\n', p);
  b = b == std::string::npos ? 0 : b + 1;
  return version_text.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

std::string cccl_version(const std::string &cuda_root) {
  auto text = read_file(cuda_root + "/include/cccl/cuda/std/__cccl/version.h");
  if (!text) return "unknown";
  auto p = text->find("#define CCCL_VERSION ");
  if (p == std::string::npos) return "unknown";
  p += 21;
  return text->substr(p, text->find('\n', p) - p);
}

} // namespace

std::string cuda_root_of(const std::string &nvcc) {
  std::filesystem::path p(real_path(nvcc));
  std::string root = p.parent_path().parent_path().string();
  if (file_exists(root + "/include/cuda_runtime.h")) return root;
  return "/usr/local/cuda";
}

std::string toolchain_identity(const std::string &nvcc) {
  ProcessOptions options;
  options.timeout = std::chrono::milliseconds(20000);
  auto r = run_process({nvcc, "--version"}, options);
  std::string version = r && r->exit_code == 0 ? release_line(r->out) : "nvcc-unavailable:" + nvcc;
  return version + "; cccl " + cccl_version(cuda_root_of(nvcc));
}

} // namespace kbcc::tooling
