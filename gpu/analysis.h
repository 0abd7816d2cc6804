// Pure logic of the GPU harness that needs no GPU: buffer comparison and
// tolerances, timing statistics, mangled-name parameter types, cubin (ELF)
// inspection and ncu CSV parsing. Used by kbcc, the kbcc-gpu runner and the
// capture library alike, and unit-tested on machines without a GPU.
#pragma once

#include "gpu/harness.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kbcc::gpu {

// Default tolerance for `type` given the calibrated original-vs-original
// noise and the largest magnitude in the reference. Integers and bytes are
// bitwise unless the original itself was nondeterministic (noise > 0).
Tolerance tolerance_for(ElementType type, double noise_abs, double ref_max_abs);

// Element-wise comparison of `out` against the reference `ref` (same size).
// Fills mismatches / max errors / pass of `report` (type, tolerance given).
// `extra` (optional, one value per element) widens each element's absolute
// tolerance, e.g. by reassociation_bound().
void compare_buffer(std::string_view ref, std::string_view out, BufferReport &report,
                    const std::vector<double> *extra = nullptr);

// The numerics class "reassociates" (docs/kernels.md): two summation orders
// of the same n terms differ by at most 2*gamma_n*sum|x_i| per output, with
// gamma_n = n*u/(1 - n*u) and u the unit roundoff of `type`. `magnitude`
// holds, per element, the original kernel's output on the absolute values of
// its floating-point inputs (sum|x_i| for sums and dot products). Returns the
// per-element bound; empty for non-floating types or n == 0.
std::vector<double> reassociation_bound(ElementType type, std::string_view magnitude, uint64_t n);

// `data` with the sign bit of every floating-point element cleared (|x|);
// other types unchanged.
std::string absolute_values(ElementType type, std::string data);
// `data` with every finite f32/f64 element x replaced by
// x * (1 + scale * u) + scale * 1e-3 * v, u and v uniform in [-1, 1) drawn
// from a counter-based generator keyed by `seed` and the element's index:
// the same bytes for the same arguments, whatever the number of host
// threads it runs on. Other types, and NaN and infinities, unchanged.
std::string perturbed(ElementType type, std::string data, uint64_t seed, double scale);
// Largest absolute element difference between two states (noise), and the
// largest |ref| element; non-finite elements are skipped.
double max_abs_difference(ElementType type, std::string_view a, std::string_view b);
double max_abs_value(ElementType type, std::string_view data);
// Reads element i as double (Bytes: the byte value).
double element_value(ElementType type, const char *data, uint64_t i);

// Median, quartiles and spread of samples (microseconds).
TimingStats summarize(std::vector<double> samples_us, bool l2_flushed);
// Fills noise_pct, speedup and significant from the three measurements.
void judge_speedup(TimingComparison &cmp);

// Pointee element types of the pointer parameters in an Itanium-mangled
// kernel name, one entry per parameter ("" when not a pointer to a builtin
// type). E.g. _Z5saxpyifPKfPf -> {"", "", "float", "float"}. Returns an empty
// vector when the name cannot be parsed.
std::vector<std::string> mangled_pointee_types(const std::string &mangled);

// What a cubin (ELF) holds, for capture and replay.
struct CubinGlobal {
  std::string name;
  std::string section; // ".nv.global", ".nv.global.init", ".nv.constant3", ...
  uint64_t size = 0;
};
struct CubinInfo {
  unsigned sm = 0;                  // e.g. 90 (from e_flags)
  std::vector<std::string> kernels; // entry-function names
  std::vector<CubinGlobal> globals; // __device__ / __constant__ variables
};
Expected<CubinInfo> inspect_cubin(std::string_view elf);

// The module globals `kernel` may read or write in the cubin `elf`: those
// whose address its code (and the callees it relocates against) loads from
// the module's address table (a constant bank whose slots are relocated to
// the globals), those their initialised data points to, and every
// __constant__ variable of a bank its code addresses at all. Instruction
// words are matched against the constant-operand layouts of sm_70..sm_120,
// not decoded: the answer may hold globals the kernel never touches, never
// the reverse. Error when `elf` is no cubin or has no code for `kernel`.
Expected<std::set<std::string>> globals_kernel_may_use(std::string_view elf, const std::string &kernel);

// Data the compiler creates in a module by itself ("$str", "$str$1": the
// string literals of printf/assert): constant, never program state, so a
// replay leaves each module its own initialised copy.
bool is_compiler_generated_global(const std::string &name);

// A captured global whose size differs in the cubin a replay loads.
struct GlobalMismatch {
  std::string global, kernel, capture, cubin;
  uint64_t captured_bytes = 0, module_bytes = 0;
};
// "" when the mismatch cannot matter (a compiler-generated global, or one
// `kernel` cannot reference per `may_use`: the replay then gives it a
// private copy); else the error to report, naming the global, the kernel,
// the capture and the cubin. An Error `may_use` counts every global as used.
std::string global_mismatch(const GlobalMismatch &m, const Expected<std::set<std::string>> &may_use);

// Parses `ncu --csv --page raw` output (one row per profiled kernel) and maps
// ncu metric names to kbcc's metric names (docs/kb-format.md). Error when no
// data row is found.
Expected<ProfileReport> parse_ncu_csv(const std::string &csv);
// The ncu metric names kbcc asks for.
const std::vector<std::string> &ncu_metric_names();

// Parses compute-sanitizer output into a report: errors counted from its
// summary line (racecheck: every hazard, errors and warnings alike).
SanitizerReport parse_sanitizer_output(SanitizerTool tool, const std::string &output, int exit_code);

} // namespace kbcc::gpu
