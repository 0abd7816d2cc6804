// What kbcc knows about one __global__ kernel of one translation unit for one
// target arch. Produced by tooling/ (extraction), consumed by the driver
// (lookup, rewrite), kb/ (registry) and agent/ (optimization).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kbcc::tooling {

struct Param {
  std::string name;        // may be empty for unnamed parameters
  std::string type;        // as written after template substitution, e.g. "const float *__restrict__"
  bool is_pointer = false; // a pointer (or array decayed to pointer)
  bool pointee_const = false;
  std::string pointee_type; // canonical pointee type for pointers ("float", "int", "struct Foo"); else empty
  bool is_record = false;   // struct/class passed by value (may hold pointers)
  bool is_integer = false;  // an integer or enumeration (not bool)
  bool is_signed = false;   // for integers: signed
  uint64_t size = 0;        // sizeof in bytes on the device side
  uint64_t align = 0;
  uint64_t offset = 0; // offset in the kernel parameter buffer
};

// Launch-site forms (LaunchSite::form) the rewriter can route through a host
// adapter (launch/adapter.h); other launch APIs are recorded with their name.
inline constexpr const char *kLaunchChevron = "<<<>>>";
inline constexpr const char *kLaunchKernel = "cudaLaunchKernel";
inline constexpr const char *kLaunchKernelEx = "cudaLaunchKernelEx";
inline constexpr const char *kLaunchKernelExC = "cudaLaunchKernelExC";

struct LaunchSite {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  std::string form; // one of the kLaunch* forms, or the API's name
  // Bytes of the main file the adapter call replaces: for <<<>>> the callee
  // up to and including "<<<" (and ">>>" in close_*), for the APIs the API's name.
  uint64_t edit_begin = 0, edit_end = 0;
  uint64_t close_begin = 0, close_end = 0;
  std::string not_rewritable; // empty when the site can call an adapter; else the reason code
};

// One labelled input of the kernel hash (shown by `kbcc explain --verbose`).
struct HashSection {
  std::string label; // e.g. "kernel", "callee:foo(int)", "macro:N", "flags", "toolchain"
  std::string text;  // exactly the bytes that were hashed for this section
};

struct Kernel {
  std::string qualified_name;             // e.g. "ns::scale<float>"
  std::vector<std::string> mangled_names; // device-side names, as in `nvcc -ptx` .entry
  std::string file;                       // file holding the definition (absolute)
  uint64_t begin = 0, end = 0;            // byte range [begin, end) of the whole definition in `file`
  unsigned line = 0;                      // line of `begin` (1-based)
  bool in_main_file = true;               // false for kernels defined in an included header
  bool is_template = false;               // definition is a template (one entry per instantiation)
  std::vector<Param> params;
  std::vector<LaunchSite> launches; // <<<>>> and cudaLaunchKernel* sites in the unit
  std::string hash;                 // XXH3-128 over hash_inputs, 32 lowercase hex
  std::vector<HashSection> hash_inputs;
  std::string source;          // text of the definition (bytes [begin, end) of file)
  std::string dependencies;    // source of user __device__ callees, types, globals, macros
  std::string not_optimizable; // empty when a variant may replace it; else the reason code
  std::string not_adaptable;   // empty when its launches can go through a host adapter; else the reason code
};

// One error clang reported while parsing (nvcc may accept the code).
struct ParseDiagnostic {
  std::string file; // as clang names it; empty when the error has no location
  unsigned line = 0, column = 0;
  bool fatal = false;     // a fatal error stops the parse (e.g. an include not found)
  bool tolerated = false; // an error for code nvcc accepts with a warning: no kernel is marked for it
  std::string message;
};

struct Extraction {
  std::string source_path; // the translation unit
  std::string arch;        // "sm_90"
  std::vector<Kernel> kernels;
  std::vector<std::string> included_files; // user and system files the unit read (for the direct-mode cache)
  unsigned parse_errors = 0;               // clang errors tolerated (nvcc may accept the code)
  std::vector<ParseDiagnostic> diagnostics; // the first kMaxDiagnostics of them (see extract.h)
  double parse_seconds = 0;
  bool from_cache = false;
};

// "sm_90" -> 900, "sm_100a" -> 1000, "compute_80" -> 800; 0 when unparsable.
int cuda_arch_number(const std::string &arch);

} // namespace kbcc::tooling
