// Public host-side API of the GPU harness: list captured launches, replay
// them with a candidate cubin and compare every output, time, calibrate noise,
// validate on fuzzed inputs, profile and sanitize.
//
// Nothing here links libcuda: every GPU operation runs in the kbcc-gpu runner
// (a subprocess that prints JSON), so a crashing or faulting variant (illegal
// address, sticky context error) ends only the runner. Functions return an
// Error for infrastructure failures (no runner, no GPU, unreadable capture);
// a variant that is wrong, faults or times out is a *report* with pass=false.
#pragma once

#include "gpu/capture_policy.h"
#include "support/expected.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kbcc::gpu {

// Element type of a device buffer, from the kernel signature (registry
// tooling::Param::pointee_type) or the mangled name; Bytes when unknown.
enum class ElementType { Bytes, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64 };

// "float" / "f32" / "__half" ... -> ElementType (Bytes when unknown).
ElementType element_type_from_name(const std::string &name);
// Short stable name: "bytes", "i32", "f32", "bf16", ...
const char *element_type_name(ElementType type);
// Size of one element in bytes (1 for Bytes).
unsigned element_size(ElementType type);
bool is_floating(ElementType type);

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

// One captured launch (a manifest under $KBCC_DIR/captures/launches/).
struct CaptureInfo {
  std::string id;          // content address, 32 hex
  std::string manifest;    // absolute path of the manifest JSON
  std::string kernel;      // device mangled name
  std::string kernel_hash; // registry hash when the registry knew it, else empty
  std::string arch;        // GPU it was captured on, e.g. "sm_90"
  std::string gpu_name;    // e.g. "NVIDIA H200"
  Dim3 grid, block;
  uint32_t shared_mem = 0;   // dynamic shared memory bytes
  uint32_t buffers = 0;      // device allocations the parameters point into
  uint64_t buffer_bytes = 0; // their total size
  bool replayable = true;
  std::string not_replayable_reason; // e.g. "pointers-in-buffers", "module-globals"
  std::string command;               // the captured program's command line
  std::string created;               // ISO-8601 UTC
  // Set by the caller, not stored: a cubin that replaces the captured module
  // as the original (the reference of calibration and fuzzing, the "o" of
  // timing, what an empty cubin launches). For a capture recorded on another
  // arch, whose module cannot run here: the original recompiled for this GPU.
  std::string reference;
};

// Which captures list_captures() returns; empty fields match everything.
struct CaptureFilter {
  std::string kernel; // mangled name or registry hash
  std::string arch;   // "sm_90"
  bool replayable_only = false;
};

// Captures in `captures_dir` (normally $KBCC_DIR/captures), oldest first. A
// malformed manifest is an Error naming the file.
Expected<std::vector<CaptureInfo>> list_captures(const std::string &captures_dir, const CaptureFilter &filter = {});
// Resolves a capture reference: an id, a unique id prefix, a manifest path, or
// a kernel's mangled name (its oldest capture).
Expected<CaptureInfo> find_capture(const std::string &captures_dir, const std::string &ref);

// Comparison tolerance of one buffer. bitwise=true: every byte must match.
struct Tolerance {
  bool bitwise = true;
  double abs = 0; // |a-b| <= abs + rel*|ref| passes
  double rel = 0;
};

// Per-buffer comparison of a replay against the captured "after" state.
struct BufferReport {
  unsigned index = 0; // buffer index in the capture manifest
  std::string name;   // parameter name or "param<i>+<offset>"
  ElementType type = ElementType::Bytes;
  uint64_t bytes = 0;
  bool written = false;    // the original launch changed it (an output)
  uint64_t mismatches = 0; // elements beyond tolerance (bytes for Bytes)
  uint64_t nan_mismatches = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;
  double noise_abs = 0; // original-vs-original difference found by calibration
  Tolerance tolerance;
  bool pass = true;
};

// Outcome of one replay (original or variant) of one capture.
struct ReplayReport {
  std::string capture_id;
  std::string kernel;
  std::string cubin;     // the cubin launched ("" = the captured module)
  bool launched = false; // the kernel ran to completion
  std::string error;     // launch/fault/timeout text when !launched
  std::vector<BufferReport> buffers;
  bool calibrated = false; // original replayed twice to measure noise
  bool pass = false;       // launched and every buffer within tolerance
  double seconds = 0;      // wall time of the runner
};

struct RunnerOptions {
  std::string runner;                        // kbcc-gpu path; empty = next to the kbcc executable
  int device = 0;                            // CUDA device ordinal
  std::chrono::milliseconds timeout{120000}; // runner is killed after this
};

struct ReplayOptions {
  RunnerOptions runner;
  bool calibrate = true; // replay the original twice first; tolerance grows with the noise
  // Overrides per parameter index of the element type of the buffer that
  // parameter points to (from the registry's tooling::Param::pointee_type).
  std::map<unsigned, ElementType> param_types;
};

// Replays `capture` with `cubin` (empty = the captured original module),
// compares every buffer with the captured "after" state.
Expected<ReplayReport> replay(const CaptureInfo &capture, const std::string &cubin, const ReplayOptions &options = {});

// Fuzzed-input validation: perturbed copies of the captured float inputs
// (and random integer inputs where safe) run through the original module as
// reference and through `cubin`; each round is compared like a replay.
struct FuzzOptions {
  ReplayOptions replay;
  unsigned rounds = 3;
  uint64_t seed = 1;
  double scale = 0.25; // relative perturbation of float inputs
};
struct FuzzReport {
  unsigned rounds = 0;
  std::vector<ReplayReport> results; // one per round
  bool pass = false;
};
Expected<FuzzReport> fuzz(const CaptureInfo &capture, const std::string &cubin, const FuzzOptions &options = {});

// Timing with CUDA events: warm-up, `reps` launches each after an L2 flush.
struct TimingOptions {
  RunnerOptions runner;
  unsigned warmup = 5;
  unsigned reps = 50;
  bool flush_l2 = true;
};
struct TimingStats {
  double median_us = 0;
  double p25_us = 0, p75_us = 0; // quartiles
  double min_us = 0, max_us = 0;
  double spread_pct = 0; // (p75-p25)/median*100
  unsigned reps = 0;
  bool l2_flushed = false;
};
// Times one cubin (empty = the captured original).
Expected<TimingStats> time_capture(const CaptureInfo &capture, const std::string &cubin,
                                   const TimingOptions &options = {});

// The original timed twice (A, B) and the variant once, interleaved in one
// runner. speedup = original_a.median / variant.median; significant only when
// the gain exceeds the measured original-vs-original noise.
struct TimingComparison {
  TimingStats original_a, original_b, variant;
  double noise_pct = 0; // |A-B|/min(A,B)*100 plus the spreads
  double speedup = 1;
  bool significant = false;
};
Expected<TimingComparison> compare_timing(const CaptureInfo &capture, const std::string &variant_cubin,
                                          const TimingOptions &options = {});

// Calibration: the original replayed twice against the capture.
struct Calibration {
  std::vector<BufferReport> buffers; // noise_abs per buffer, tolerance chosen
  TimingComparison timing;           // variant = third original run
  bool deterministic = true;         // both runs bit-identical to the capture
};
Expected<Calibration> calibrate(const CaptureInfo &capture, const TimingOptions &options = {});

// Profiling through ncu on a runner replay (one launch profiled). Metric
// names follow docs/kb-format.md: dram_throughput_pct, l2_throughput_pct,
// sm_throughput_pct, achieved_occupancy_pct, registers_per_thread,
// spill_bytes, shared_mem_per_block, l1_hit_rate_pct, l2_hit_rate_pct,
// warp_stall_<reason>_pct, inst_<class>_pct, duration_us.
struct ProfileOptions {
  RunnerOptions runner;
  std::string ncu;    // ncu path; empty = PATH, then /usr/local/cuda/bin
  std::string launch; // the candidate's launch "GX,GY,GZ,BX,BY,BZ,SHARED"; empty = the captured one
};
struct ProfileReport {
  std::map<std::string, double> metrics;
  std::vector<std::string> top_stalls; // warp stall reasons, largest first
  std::string tool;                    // "ncu"
  double seconds = 0;                  // profiling cost for this launch
  std::string raw;                     // the profiler's own output (CSV)
};
Expected<ProfileReport> profile(const CaptureInfo &capture, const std::string &cubin,
                                const ProfileOptions &options = {});

// compute-sanitizer run of one replay.
enum class SanitizerTool { Memcheck, Racecheck };
struct SanitizerReport {
  SanitizerTool tool = SanitizerTool::Memcheck;
  bool clean = false;  // ran and reported no error
  unsigned errors = 0; // errors reported
  std::string summary; // first error lines
  double seconds = 0;
};
// `launch` as in ProfileOptions.
Expected<SanitizerReport> sanitize(const CaptureInfo &capture, const std::string &cubin, SanitizerTool tool,
                                   const RunnerOptions &options = {}, const std::string &launch = {});

// Everything the optimization loop needs to accept a variant on one capture:
// replay (calibrated), fuzz rounds, optional sanitizer runs.
struct ValidationOptions {
  ReplayOptions replay;
  unsigned fuzz_rounds = 2;
  bool memcheck = false;
  bool racecheck = false;
};
struct Validation {
  bool pass = false;
  std::string reason; // first failure, e.g. "buffer 2 (out): 17 mismatches, max abs 0.5"
  ReplayReport replay;
  FuzzReport fuzz;
  std::vector<SanitizerReport> sanitizers;
  double max_error = 0; // largest max_abs_error over buffers and rounds
};
Expected<Validation> validate(const CaptureInfo &capture, const std::string &cubin,
                              const ValidationOptions &options = {});

// `kbcc capture`: runs `command` with the capture library injected
// (CUDA_INJECTION64_PATH, CUDA_MODULE_LOADING=EAGER) and records launches of
// the selected kernels into `captures_dir`.
struct CaptureOptions {
  std::string captures_dir;                         // $KBCC_DIR/captures
  std::vector<std::string> kernels;                 // mangled names to record; empty = all
  std::map<std::string, std::string> kernel_hashes; // mangled name -> registry hash (stored in manifests)
  unsigned max_launches = 4;                        // per kernel and launch configuration
  uint64_t max_bytes = 256ull << 20;                // larger launches only while the kernel has no replayable capture
  uint64_t size_cap = 1ull << 30;                   // capture_max_size (or --max-total): never record beyond it
};
struct CaptureSummary {
  int exit_code = 0;                      // the program's exit status (passed on by kbcc)
  std::vector<std::string> ids;           // captures written (new or already present)
  std::map<std::string, uint64_t> counts; // "launches", "captured", "skipped_stream_capture",
                                          // "skipped_filter", "skipped_limit", "skipped_size",
                                          // "skipped_cap", "not_replayable", "errors", "graph_launches"
  std::map<std::string, KernelTally> kernels; // per wanted kernel that was launched (capture_policy.h)
  uint64_t used = 0;                          // bytes in captures_dir at the end
  double seconds = 0;
};
Expected<CaptureSummary> run_capture(const std::vector<std::string> &command, const CaptureOptions &options);
// Reads one session file (captures/sessions/<name>.json) written by the
// capture library; exit_code and seconds stay 0.
Expected<CaptureSummary> read_capture_session(const std::string &path);
// The per-kernel tallies of every session under `captures_dir`, summed
// (unreadable sessions are skipped).
std::map<std::string, KernelTally> capture_session_tallies(const std::string &captures_dir);

// The GPU the runner sees.
struct DeviceInfo {
  std::string name; // "NVIDIA H200"
  std::string arch; // "sm_90"
  int driver_version = 0;
  int sm_count = 0;
  uint64_t l2_bytes = 0;
  uint64_t memory_bytes = 0;
};
// Error when no runner or no GPU is available (kbcc then skips GPU work).
Expected<DeviceInfo> device_info(const RunnerOptions &options = {});

// Paths of the harness binaries installed next to kbcc (bin/, ../lib,
// ../libexec/kbcc); Error naming the places searched when missing.
Expected<std::string> runner_path(const std::string &override_path = {});
Expected<std::string> capture_library_path();

} // namespace kbcc::gpu
