// The stages of one compile, behind interfaces so each module fills its own:
//   extract (tooling/) -> look up (cache/, kb/, snapshot) -> rewrite (tooling/)
// The driver's pipeline (driver/compile_pipeline.*) only talks to these.
#pragma once

#include "launch/mapping.h"
#include "support/expected.h"
#include "tooling/kernel.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kbcc::driver {

// One CUDA translation unit to compile, as the argument model understood it.
struct CompileUnit {
  std::string source;                     // path of the .cu file as given
  std::string source_abs;                 // absolute path
  std::vector<std::string> archs;         // real device archs compiled for SASS, e.g. {"sm_80","sm_90"}
  std::vector<std::string> device_flags;  // flags that can change device code, normalized (-D.., -U.., -I.., -std=.., --use_fast_math, -G, -O3, -Xptxas=..)
  std::vector<std::string> include_flags; // -I/-isystem/-include in order, for parsing
  std::string std;                        // "c++17" when not given
  std::vector<std::string> nvcc_argv;     // the complete original nvcc command (argv[0] = real nvcc)
  std::string toolchain;                  // nvcc version text + CCCL version
  std::string working_dir;
  std::string host_compiler;              // -ccbin value (else NVCC_CCBIN); empty = nvcc's default (gcc)
};

class Extractor {
public:
  virtual ~Extractor() = default;
  // Lists the kernels of `unit` for `arch`. Errors are internal failures
  // (the build then falls back to nvcc).
  virtual Expected<tooling::Extraction> extract(const CompileUnit &unit, const std::string &arch) = 0;
};

// A variant chosen for one kernel and arch.
struct ChosenVariant {
  std::string kernel_hash;
  std::string arch;
  std::string source;   // replacement definition of the kernel
  std::string name;     // label for #line, e.g. "kbcc-variant-<id>"
  std::string origin;   // "cache", "snapshot", "remote"
  std::optional<launch::LaunchMapping> launch; // launch-changing variant (launch/mapping.h)
};

class VariantLookup {
public:
  virtual ~VariantLookup() = default;
  // The variant to compile in for `kernel` on `arch`, if any.
  virtual std::optional<ChosenVariant> lookup(const tooling::Kernel &kernel, const std::string &arch) = 0;
  // Records the kernels of a compile in the registry (no-op when pinned).
  virtual void record(const CompileUnit &unit, const std::vector<tooling::Extraction> &per_arch) = 0;
};

// A rewritten unit and the #line file names it uses that are not files
// (variant labels, adapters): they must not reach a depfile.
struct RewrittenUnit {
  std::string text;
  std::vector<std::string> line_names;
};

class UnitRewriter {
public:
  virtual ~UnitRewriter() = default;
  // Returns the text of `unit` with each chosen variant under
  // #if __CUDA_ARCH__ == NNN (original under #else), and each launch-changing
  // variant beside the original with its launch sites routed through an adapter.
  virtual Expected<RewrittenUnit> rewrite(const CompileUnit &unit, const std::vector<tooling::Extraction> &per_arch,
                                        const std::vector<ChosenVariant> &chosen) = 0;
};

}  // namespace kbcc::driver

namespace kbcc {
class Config;
}

namespace kbcc::driver {

// Default stage implementations used by the kbcc executable.
// make_extractor/make_rewriter: driver/stage_tooling.cpp (tooling/);
// make_variant_lookup: driver/stage_lookup.cpp (cache/ and kb/).
std::unique_ptr<Extractor> make_extractor(const Config &config);
std::unique_ptr<UnitRewriter> make_rewriter(const Config &config);
// Fails when the store or a pinned snapshot is unusable (the caller decides
// between falling back to nvcc and failing under KBCC_STRICT).
Expected<std::unique_ptr<VariantLookup>> make_variant_lookup(const Config &config, const CompileUnit &unit);

}  // namespace kbcc::driver
