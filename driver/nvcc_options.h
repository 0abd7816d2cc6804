// The nvcc command-line model: one table row per nvcc option (CUDA 13), with
// its spellings, whether it takes an argument and in which forms, whether it
// can change device code, and which compilation mode it selects. The parser
// (driver/args.h) only walks this table; adding an option is adding a row.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kbcc::driver {

// What nvcc is asked to produce (the last mode option wins, as in nvcc).
enum class Mode {
  kNone,         // not a mode option
  kLink,         // default: compile and link an executable (also --link)
  kCompile,      // -c
  kDeviceC,      // -dc (-rdc=true -c)
  kDeviceW,      // -dw (-rdc=false -c)
  kDeviceLink,   // -dlink
  kLib,          // -lib
  kRun,          // -run
  kPtx,          // -ptx
  kCubin,        // -cubin
  kFatbin,       // -fatbin
  kCudaCpp,      // -cuda (.cu.cpp.ii output)
  kOptixIr,      // -optix-ir
  kLtoIr,        // -ltoir
  kPreprocess,   // -E
  kDependencies, // -M / -MM (no compilation)
  kInfo,         // --version, --help, --list-gpu-arch/code: prints, compiles nothing
};

// What the parser does with an option beyond passing it through.
enum class Role {
  kPlain,         // only its flags matter
  kMode,          // selects `mode`
  kGencode,       // --generate-code spec
  kArch,          // --gpu-architecture
  kCode,          // --gpu-code
  kDefine,        // -D
  kUndefine,      // -U
  kIncludePath,   // -I
  kSystemInclude, // -isystem
  kPreInclude,    // -include
  kStd,           // -std
  kOptionsFile,   // --options-file (spliced in place, nested)
  kOutput,        // -o
  kLanguage,      // -x
  kRdc,           // -rdc {true|false}
  kPtxas,         // -Xptxas (each list element is a device flag)
  kDryRun,        // --dryrun
  kVerbose,       // -v
  kDepGen,        // -MD / -MMD (depfile written during compile)
  kDepFile,       // -MF
  kDepTarget,     // -MT
  kKeep,          // --keep / --save-temps (temporaries land next to the output)
  kHostCompiler,  // -ccbin (the host compiler nvcc runs, also to preprocess device code)
};

enum OptionFlag : unsigned {
  kTakesArg = 1u << 0, // needs a value: `-o f`, `-o=f`, `--output-file f`, `--output-file=f`
  kJoined = 1u << 1,   // the short spelling also takes a joined value: -DX, -I/p, -O3, -lm
  kList = 1u << 2,     // the value is a comma-separated list
  kDevice = 1u << 3,   // can change the device code of a compilation
};

struct NvccOption {
  const char *long_name;  // without dashes, e.g. "gpu-architecture"
  const char *short_name; // without dashes, e.g. "arch"; may equal long_name
  unsigned flags;         // OptionFlag bits
  Role role;
  Mode mode; // for Role::kMode
  bool takes_arg() const { return flags & kTakesArg; }
  // nvcc accepts `-name=value` / `--name=value` for every option with an argument.
  bool equals_allowed() const { return takes_arg(); }
  bool joined() const { return flags & kJoined; }
  bool list() const { return flags & kList; }
  bool affects_device() const { return flags & kDevice; }
};

// Every nvcc option kbcc models.
const std::vector<NvccOption> &nvcc_options();

// The row whose long or short spelling is `name` (given without dashes), or null.
const NvccOption *find_nvcc_option(std::string_view name);

// The row with a kJoined short spelling that prefixes `name` (without the
// leading dash), e.g. "DFOO=1" -> the -D row; the longest such prefix wins.
const NvccOption *find_joined_option(std::string_view name);

} // namespace kbcc::driver
