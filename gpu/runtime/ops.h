// What kbcc-gpu does with one capture, as JSON requests and responses
// (docs/gpu.md, "kbcc-gpu"): check a candidate against the capture, time the
// reference and a candidate, launch for a profiler or sanitizer. Shared by
// the one-shot verbs and `kbcc-gpu serve`.
#pragma once

#include "gpu/runtime/replay.h"

#include <nlohmann/json.hpp>

namespace kbcc::gpu::runtime {

// {"name", "arch", "driver_version", "sm_count", "l2_bytes", "memory_bytes"}
nlohmann::json device_json(CUdevice dev);

// A launch shape from {"grid": [x,y,z], "block": [x,y,z], "shared": n};
// `fallback` when `j` is null.
Shape shape_from_json(const nlohmann::json &j, const Shape &fallback);

// Replays the reference ("reference": cubin, "" = captured module) and the
// candidate ("candidate": cubin, launched with "candidate_shape") on the
// captured inputs and compares with the captured outputs ("calibrate": noise
// from two reference runs), then on "fuzz" {"rounds","seed","scale"}
// perturbed inputs and on each of "shapes" [{"params": {"<index>": value},
// "candidate_shape": ...}] against the reference. "reassociation_n" > 0
// widens float tolerances by the reordered-summation bound. "pass" is the
// conjunction of "replay_pass", "fuzz_pass" and "shapes_pass". Throws
// CudaError when the context is lost; a wrong candidate is pass=false.
nlohmann::json check(Replay &r, const nlohmann::json &request);

// Times "runs" (a string of 'o' = reference with the captured shape, 'v' =
// candidate with "candidate_shape"), interleaved, "warmup" + "reps" times,
// inputs restored and (unless "flush" is false) the L2 flushed before each.
nlohmann::json time(Replay &r, CUdevice dev, const nlohmann::json &request);

// Runs the candidate "count" times (for ncu and compute-sanitizer).
nlohmann::json launch(Replay &r, const nlohmann::json &request);

} // namespace kbcc::gpu::runtime
