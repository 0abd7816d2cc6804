// Finding the real nvcc: KBCC_NVCC (config key `nvcc`), then the launcher's
// first argument, then $CUDA_HOME/bin/nvcc, then PATH. A candidate that is
// kbcc itself (same inode as /proc/self/exe, e.g. a symlink named nvcc), or
// the other kbcc executable beside it (kbcc and kbcc-full), is skipped, so
// kbcc never runs itself.
#pragma once

#include "support/expected.h"

#include <string>

namespace kbcc::driver {

struct NvccSearch {
  std::string configured;  // value of the `nvcc` config key (KBCC_NVCC); may be empty
  std::string launcher;    // launcher form's first argument; may be empty
  std::string cuda_home;   // $CUDA_HOME; may be empty
  std::string path;        // $PATH
  std::string self_exe;    // kbcc's own executable (default /proc/self/exe)
  std::string sibling_exe; // the other kbcc executable next to it (kbcc-full beside kbcc, and back); may be empty
  // The inputs from the environment of this process.
  static NvccSearch current(const std::string &configured, const std::string &launcher);
};

// The absolute path of the real nvcc, or an Error (code "no-nvcc") naming
// every place looked at and why each was not used.
Expected<std::string> find_nvcc(const NvccSearch &search);

// True when `path` is the same file as `self_exe` after resolving symlinks.
bool is_same_executable(const std::string &path, const std::string &self_exe);

// The other kbcc executable next to `self` (a resolved path): kbcc-full
// beside kbcc, kbcc beside kbcc-full; empty for any other name.
std::string sibling_executable(const std::string &self);

} // namespace kbcc::driver
