#include "driver/nvcc_options.h"

namespace kbcc::driver {
namespace {

constexpr unsigned A = kTakesArg, J = kJoined, L = kList, D = kDevice;
constexpr Role P = Role::kPlain;
constexpr Mode N = Mode::kNone;

} // namespace

const std::vector<NvccOption> &nvcc_options() {
  // long name, short name, flags, role, mode. Source: `nvcc --help` of CUDA 13.0.
  static const std::vector<NvccOption> rows = {
      // Compilation phases (modes).
      {"cuda", "cuda", 0, Role::kMode, Mode::kCudaCpp},
      {"cubin", "cubin", 0, Role::kMode, Mode::kCubin},
      {"fatbin", "fatbin", 0, Role::kMode, Mode::kFatbin},
      {"ptx", "ptx", 0, Role::kMode, Mode::kPtx},
      {"optix-ir", "optix-ir", 0, Role::kMode, Mode::kOptixIr},
      {"ltoir", "ltoir", 0, Role::kMode, Mode::kLtoIr},
      {"preprocess", "E", 0, Role::kMode, Mode::kPreprocess},
      {"generate-dependencies", "M", 0, Role::kMode, Mode::kDependencies},
      {"generate-nonsystem-dependencies", "MM", 0, Role::kMode, Mode::kDependencies},
      {"generate-dependencies-with-compile", "MD", 0, Role::kDepGen, N},
      {"generate-nonsystem-dependencies-with-compile", "MMD", 0, Role::kDepGen, N},
      {"dependency-output", "MF", A, Role::kDepFile, N},
      {"generate-dependency-targets", "MP", 0, P, N},
      {"dependency-target-name", "MT", A, Role::kDepTarget, N},
      {"compile", "c", 0, Role::kMode, Mode::kCompile},
      {"device-c", "dc", D, Role::kMode, Mode::kDeviceC},
      {"device-w", "dw", D, Role::kMode, Mode::kDeviceW},
      {"device-link", "dlink", 0, Role::kMode, Mode::kDeviceLink},
      {"link", "link", 0, Role::kMode, Mode::kLink},
      {"lib", "lib", 0, Role::kMode, Mode::kLib},
      {"run", "run", 0, Role::kMode, Mode::kRun},
      // File and path specifications.
      {"output-file", "o", A, Role::kOutput, N},
      {"pre-include", "include", A | L | D, Role::kPreInclude, N},
      {"objdir-as-tempdir", "objtemp", 0, P, N},
      {"library", "l", A | J | L, P, N},
      {"define-macro", "D", A | J | L | D, Role::kDefine, N},
      {"undefine-macro", "U", A | J | L | D, Role::kUndefine, N},
      {"include-path", "I", A | J | L | D, Role::kIncludePath, N},
      {"system-include", "isystem", A | L | D, Role::kSystemInclude, N},
      {"library-path", "L", A | J | L, P, N},
      {"output-directory", "odir", A, P, N},
      {"compiler-bindir", "ccbin", A, Role::kHostCompiler, N},
      {"allow-unsupported-compiler", "allow-unsupported-compiler", 0, P, N},
      {"archiver-binary", "arbin", A, P, N},
      {"cudart", "cudart", A, P, N},
      {"cudadevrt", "cudadevrt", A, P, N},
      {"libdevice-directory", "ldir", A | D, P, N},
      {"target-directory", "target-dir", A, P, N},
      {"use-local-env", "use-local-env", 0, P, N},
      {"force-cl-env-setup", "force-cl-env-setup", 0, P, N},
      {"options-file", "optf", A | L, Role::kOptionsFile, N},
      // Options for the compiler and its tools.
      {"profile", "pg", 0, P, N},
      {"debug", "g", 0, P, N},
      {"device-debug", "G", D, P, N},
      {"generate-line-info", "lineinfo", D, P, N},
      {"optimization-info", "opt-info", A | L, P, N},
      {"optimize", "O", A | J | D, P, N},
      {"Ofast-compile", "Ofc", A | D, P, N},
      {"dopt", "dopt", A | D, P, N},
      {"dlink-time-opt", "dlto", D, P, N},
      {"lto", "lto", D, P, N},
      {"gen-opt-lto", "gen-opt-lto", D, P, N},
      {"ftemplate-backtrace-limit", "ftemplate-backtrace-limit", A, P, N},
      {"ftemplate-depth", "ftemplate-depth", A | D, P, N},
      {"no-exceptions", "noeh", D, P, N},
      {"shared", "shared", 0, P, N},
      {"x", "x", A, Role::kLanguage, N},
      {"std", "std", A | D, Role::kStd, N},
      {"no-host-device-initializer-list", "nohdinitlist", D, P, N},
      {"no-host-device-move-forward", "nohdmoveforward", D, P, N},
      {"expt-relaxed-constexpr", "expt-relaxed-constexpr", D, P, N},
      {"extended-lambda", "extended-lambda", D, P, N},
      {"expt-extended-lambda", "expt-extended-lambda", D, P, N},
      {"machine", "m", A | D, P, N},
      {"m64", "m64", D, P, N},
      {"compiler-options", "Xcompiler", A | L, P, N},
      {"linker-options", "Xlinker", A | L, P, N},
      {"archive-options", "Xarchive", A | L, P, N},
      {"ptxas-options", "Xptxas", A | L | D, Role::kPtxas, N},
      {"nvlink-options", "Xnvlink", A | L, P, N},
      {"static-global-template-stub", "static-global-template-stub", A | D, P, N},
      {"device-entity-has-hidden-visibility", "device-entity-has-hidden-visibility", A | D, P, N},
      {"forward-unknown-to-host-compiler", "forward-unknown-to-host-compiler", 0, P, N},
      {"forward-unknown-to-host-linker", "forward-unknown-to-host-linker", 0, P, N},
      {"forward-unknown-opts", "forward-unknown-opts", 0, P, N},
      {"dont-use-profile", "noprof", 0, P, N},
      {"dryrun", "dryrun", 0, Role::kDryRun, N},
      {"verbose", "v", 0, Role::kVerbose, N},
      {"threads", "t", A, P, N},
      {"split-compile", "split-compile", A, P, N},
      {"split-compile-extended", "split-compile-extended", A, P, N},
      {"fdevice-syntax-only", "fdevice-syntax-only", 0, P, N},
      {"fdevice-time-trace", "fdevice-time-trace", A, P, N},
      {"keep", "keep", 0, Role::kKeep, N},
      {"keep-dir", "keep-dir", A, P, N},
      {"save-temps", "save-temps", 0, Role::kKeep, N},
      {"clean-targets", "clean", 0, P, N},
      {"time", "time", A, P, N},
      {"run-args", "run-args", A | L, P, N},
      {"input-drive-prefix", "idp", A, P, N},
      {"dependency-drive-prefix", "ddp", A, P, N},
      {"drive-prefix", "dp", A, P, N},
      {"no-align-double", "no-align-double", D, P, N},
      {"no-device-link", "nodlink", 0, P, N},
      // Options for steering GPU code generation.
      {"gpu-architecture", "arch", A | D, Role::kArch, N},
      {"gpu-code", "code", A | L | D, Role::kCode, N},
      {"generate-code", "gencode", A | L | D, Role::kGencode, N},
      {"relocatable-device-code", "rdc", A | D, Role::kRdc, N},
      {"entries", "e", A | L | D, P, N},
      {"maxrregcount", "maxrregcount", A | D, P, N},
      {"use_fast_math", "use_fast_math", D, P, N},
      {"ftz", "ftz", A | D, P, N},
      {"prec-div", "prec-div", A | D, P, N},
      {"prec-sqrt", "prec-sqrt", A | D, P, N},
      {"fmad", "fmad", A | D, P, N},
      {"extra-device-vectorization", "extra-device-vectorization", D, P, N},
      {"default-stream", "default-stream", A | D, P, N},
      {"disable-warnings", "w", 0, P, N},
      {"keep-device-functions", "keep-device-functions", D, P, N},
      {"source-in-ptx", "src-in-ptx", D, P, N},
      {"restrict", "restrict", D, P, N},
      {"Wreorder", "Wreorder", 0, P, N},
      {"Wdefault-stream-launch", "Wdefault-stream-launch", 0, P, N},
      {"Wmissing-launch-bounds", "Wmissing-launch-bounds", 0, P, N},
      {"Wext-lambda-captures-this", "Wext-lambda-captures-this", 0, P, N},
      {"Wno-deprecated-declarations", "Wno-deprecated-declarations", 0, P, N},
      {"Wno-deprecated-gpu-targets", "Wno-deprecated-gpu-targets", 0, P, N},
      {"Werror", "Werror", A | L, P, N},
      {"resource-usage", "res-usage", 0, P, N},
      {"extensible-whole-program", "ewp", D, P, N},
      {"no-compress", "no-compress", 0, P, N},
      {"qpp-config", "qpp-config", A, P, N},
      {"compile-as-tools-patch", "astoolspatch", D, P, N},
      {"list-gpu-code", "code-ls", 0, Role::kMode, Mode::kInfo},
      {"list-gpu-arch", "arch-ls", 0, Role::kMode, Mode::kInfo},
      {"display-error-number", "err-no", 0, P, N},
      {"no-display-error-number", "no-err-no", 0, P, N},
      {"diag-error", "diag-error", A | L, P, N},
      {"diag-suppress", "diag-suppress", A | L, P, N},
      {"diag-warn", "diag-warn", A | L, P, N},
      {"host-linker-script", "hls", A, P, N},
      {"augment-host-linker-script", "aug-hls", 0, P, N},
      {"relocatable-link", "r", 0, P, N},
      {"brief-diagnostics", "brief-diag", A, P, N},
      {"jump-table-density", "jtd", A | D, P, N},
      {"relocatable-ptx", "reloc-ptx", D, P, N},
      {"device-stack-protector", "device-stack-protector", A | D, P, N},
      {"compress-mode", "compress-mode", A, P, N},
      {"frandom-seed", "frandom-seed", A | D, P, N},
      {"sanitize", "sanitize", A | D, P, N},
      {"jobserver", "jobserver", 0, P, N},
      {"help", "h", 0, Role::kMode, Mode::kInfo},
      {"version", "V", 0, Role::kMode, Mode::kInfo},
  };
  return rows;
}

const NvccOption *find_nvcc_option(std::string_view name) {
  for (const auto &o : nvcc_options())
    if (name == o.long_name || name == o.short_name) return &o;
  return nullptr;
}

const NvccOption *find_joined_option(std::string_view name) {
  const NvccOption *best = nullptr;
  size_t best_len = 0;
  for (const auto &o : nvcc_options()) {
    std::string_view s = o.short_name;
    if (!o.joined() || s.size() >= name.size() || name.substr(0, s.size()) != s) continue;
    if (s.size() > best_len) best = &o, best_len = s.size();
  }
  return best;
}

} // namespace kbcc::driver
