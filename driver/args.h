// Classifies one nvcc command line with the option table of
// driver/nvcc_options.h. Exactly three results, as in sccache:
//   Compilation     one CUDA translation unit kbcc may optimize;
//   CannotOptimize  a compile kbcc must leave alone, with a stable reason
//                   code that `kbcc stats` counts as cannot-optimize:<reason>;
//   NotCompilation  anything else (link, -E, -M, --version, ...).
// Options kbcc does not know are kept and never rejected.
#pragma once

#include "driver/nvcc_options.h"
#include "driver/stages.h"

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kbcc::driver {

// What the parser reads besides argv: nvcc's own environment variables and
// the working directory (for relative paths).
struct NvccEnvironment {
  std::string prepend_flags; // NVCC_PREPEND_FLAGS
  std::string append_flags;  // NVCC_APPEND_FLAGS
  std::string cwd;
  std::string ccbin; // NVCC_CCBIN: the host compiler when no -ccbin is given
  // Reads NVCC_PREPEND_FLAGS, NVCC_APPEND_FLAGS, NVCC_CCBIN and the current directory.
  static NvccEnvironment current();
};

struct Compilation {
  CompileUnit unit;
  size_t source_index = 0; // position of unit.source in unit.nvcc_argv
  Mode mode = Mode::kLink;
  std::string output;                 // -o value as given; empty when absent
  bool depfile = false;               // -MD / -MMD given
  std::string depfile_path;           // where nvcc writes it (-MF, else derived from -o or the source)
  std::vector<std::string> ptx_archs; // virtual targets embedded as PTX, e.g. {"compute_90"}
};

struct CannotOptimize {
  std::string reason; // stable code, e.g. "multiple-cuda-sources"
  std::string detail; // human-readable, for --kbcc-verbose and the log
};

struct NotCompilation {
  std::string what; // e.g. "link", "version", "preprocess"
};

using ParseResult = std::variant<Compilation, CannotOptimize, NotCompilation>;

// Classifies `argv` (argv[0] = the real nvcc, the rest exactly as nvcc would
// receive them). Options files are read (nested) to see their options.
ParseResult parse_nvcc_command(const std::vector<std::string> &argv, const NvccEnvironment &env);

// Splits text the way nvcc splits options files and NVCC_*_FLAGS:
// whitespace-separated words with '...' and "..." quoting and \ escapes.
std::vector<std::string> split_command_line(std::string_view text);

// Real SASS targets (sm_XX) and PTX targets (compute_XX) of the target options
// (-gencode values, -arch, -code); empty `error` when they are understood.
struct Targets {
  std::vector<std::string> sass;
  std::vector<std::string> ptx;
  bool any = false;  // some target option was given
  std::string error; // a reason code when the targets cannot be known
};
Targets resolve_targets(const std::vector<std::string> &gencodes, const std::string &arch,
                        const std::vector<std::string> &codes);

} // namespace kbcc::driver
