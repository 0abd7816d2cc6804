// Kernel extraction with Clang LibTooling: parses one unit on the device side
// for one arch and lists every __global__ kernel defined in user code, with
// names, ranges, parameters, launch sites and the canonical hash.
#pragma once

#include "support/expected.h"
#include "tooling/kernel.h"
#include "tooling/request.h"

#include <chrono>

namespace kbcc::tooling {

// Reason codes in Kernel::not_optimizable.
inline constexpr const char *kKernelInHeader = "kernel-in-header";
inline constexpr const char *kMacroGenerated = "macro-generated";
inline constexpr const char *kParseErrorInKernel = "parse-error-in-kernel";
inline constexpr const char *kUnreadableRange = "no-source-range";

// How many clang errors an Extraction keeps (fatal ones always), and how
// many a parse-fatal Error message quotes.
inline constexpr size_t kMaxDiagnostics = 50;
inline constexpr size_t kMaxDiagnosticsInError = 3;

// "file:line:col: error: message" (gcc style).
std::string format_diagnostic(const ParseDiagnostic &d);
// Up to `max` of `list` as one line joined by "; ", fatal errors first, with
// "(N more)" when some were left out.
std::string format_diagnostics(const std::vector<ParseDiagnostic> &list, size_t max);

// Parses in this process. Errors: the unit could not be parsed reliably
// (fatal error such as a missing include, or no AST at all).
Expected<Extraction> extract_in_process(const ParseRequest &request);

// Parses in a forked child with `timeout` (0 = none) and reads the result
// back; a crash or hang of the parser becomes an Error ("parse-crash",
// "parse-timeout"), never a crash of the caller.
Expected<Extraction> extract_isolated(const ParseRequest &request, std::chrono::milliseconds timeout);

} // namespace kbcc::tooling
