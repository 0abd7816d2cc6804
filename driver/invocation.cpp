#include "driver/invocation.h"

#include <cctype>
#include <filesystem>
#include <unistd.h>

namespace kbcc::driver {
namespace {

// True for names nvcc takes as input files (sources, objects, libraries, device code).
bool has_input_extension(const std::string &base) {
  std::string ext = std::filesystem::path(base).extension().string();
  for (const char *e : {".cu", ".cpp", ".cc", ".cxx", ".c", ".i", ".ii", ".o", ".obj", ".a", ".so", ".lib", ".ptx",
                        ".cubin", ".fatbin", ".ltoir", ".h", ".cuh", ".hpp"})
    if (ext == e) return true;
  return false;
}

} // namespace

bool is_launcher_argument(const std::string &arg) {
  if (arg.empty() || arg[0] == '-' || arg[0] == '@') return false;
  std::string base = std::filesystem::path(arg).filename().string();
  if (has_input_extension(base)) return false; // `kbcc nvcc_kernels.cu ...` is compiler form
  if (base == "nvcc" || base.rfind("nvcc", 0) == 0) return true;
  std::error_code ec;
  return arg.find('/') != std::string::npos && std::filesystem::is_regular_file(arg, ec) &&
         access(arg.c_str(), X_OK) == 0 && std::filesystem::path(arg).extension().empty();
}

bool is_kbcc_request(const std::string &arg) {
  if (arg == "--help" || arg == "-h" || arg == "--kbcc-version") return true;
  if (arg.empty() || !std::islower(static_cast<unsigned char>(arg[0]))) return false;
  for (char c : arg)
    if (!std::islower(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  return true; // nvcc takes no input without an extension, so a word is never nvcc's
}

} // namespace kbcc::driver
