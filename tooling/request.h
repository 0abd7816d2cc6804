// What one kernel extraction needs to know about a translation unit: the
// file, one target arch, the nvcc flags that affect parsing or device code,
// and the toolchain identity folded into every kernel hash.
#pragma once

#include <string>
#include <vector>

namespace kbcc::tooling {

// Clang's resource directory (its own headers, CUDA wrappers included),
// pinned: LibTooling would derive it from kbcc's own path.
inline constexpr const char *kClangResourceDir = "/usr/lib/llvm-19/lib/clang/19";

struct ParseRequest {
  std::string source;                 // the .cu file (absolute, or relative to working_dir)
  std::string arch;                   // one real arch, e.g. "sm_90"
  std::vector<std::string> arch_list; // every real arch of the compile (nvcc's __CUDA_ARCH_LIST__); empty = {arch}
  std::vector<std::string> flags; // nvcc flags: -D/-U/-I/-isystem/-include (joined or separate), -std=, device flags
  std::string std = "c++17";      // language standard when flags hold no -std
  std::string working_dir;        // directory relative paths are resolved against; empty = current
  std::string cuda_root = "/usr/local/cuda";
  std::string toolchain; // nvcc version + CCCL version (see toolchain.h)
  std::string shim_dir;  // where the parse shims live; empty = a per-process temporary directory
  // The #include <...> directories of the host compiler nvcc uses (see
  // host_compiler.h), searched after clang's own (-idirafter), in order.
  std::vector<std::string> host_include_dirs;
};

// The flags of `flags` that can change device code, in order, without
// include paths and forced includes (their effect is hashed through the
// tokens they contribute, so a checkout's location never changes a hash).
std::vector<std::string> device_code_flags(const std::vector<std::string> &flags);

// The complete clang driver command line (argv[0] included) that parses
// `request` on the device side, with the shims from `shim_dir`.
std::vector<std::string> clang_arguments(const ParseRequest &request, const std::string &shim_dir);

// Clang 19 parses up to sm_90: higher archs are parsed as sm_90 with
// __CUDA_ARCH__ redefined. Returns the arch given to --cuda-gpu-arch.
std::string clang_parse_arch(const std::string &arch);

} // namespace kbcc::tooling
