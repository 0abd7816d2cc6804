// Device side of replaying one captured launch (kbcc-gpu only; links the CUDA
// driver): device buffers restored from the capture, modules (the captured one
// or a candidate cubin) bound to them, and launches with the captured or a
// mapped configuration and the captured or overridden scalar arguments.
#pragma once

#include "gpu/capture_format.h"

#include <algorithm>
#include <cuda.h>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbcc::gpu::runtime {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A kernel that ran far longer than any this replay saw finish (Replay::wait):
// it is still running, so the context is as lost as after a fault.
struct KernelTimeout : CudaError {
  using CudaError::CudaError;
};

// Throws CudaError naming `what` unless `r` is CUDA_SUCCESS.
void check(CUresult r, const char *what);

// A launch configuration.
struct Shape {
  Dim3 grid, block;
  uint32_t shared = 0;
};

// One loaded module with the addresses of the capture's buffers it uses.
struct Module {
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  std::vector<CUdeviceptr> addr;  // per manifest buffer
  std::vector<CUdeviceptr> owned; // private copies of globals the module does not define
  uint32_t shared_opt_in = 0;     // dynamic shared memory the function was opted in to
};

class Replay {
public:
  // Loads the manifest and its blobs; `types` overrides buffer element types
  // by parameter index. Throws std::runtime_error naming the file.
  Replay(const std::string &manifest_path, const std::map<unsigned, std::string> &types);
  ~Replay();
  Replay(const Replay &) = delete;
  Replay &operator=(const Replay &) = delete;

  const Manifest &manifest() const { return m_; }
  const std::vector<std::string> &before() const { return before_; }
  const std::vector<std::string> &after() const { return after_; }
  ElementType type(size_t i) const { return types_[i]; }
  Shape captured_shape() const { return {m_.grid, m_.block, m_.shared_mem}; }
  // Device bytes this replay holds (buffers of every loaded module).
  uint64_t device_bytes() const { return device_bytes_; }

  // The captured parameter bytes with scalar parameters replaced (parameter
  // index -> value, written in the parameter's size, little-endian).
  std::string params(const std::map<unsigned, int64_t> &overrides = {}) const;
  // The module of `cubin` ("" = the captured module), loaded once.
  Module &module(const std::string &cubin);

  void upload(const Module &m, const std::vector<std::string> &inputs, CUstream stream = nullptr);
  void launch(Module &m, const Shape &shape, const std::string &params, CUstream stream = nullptr);
  // Waits for the work between `start` and `stop`, events recorded around one
  // launch, and returns its milliseconds. Throws CudaError on a fault, and
  // KernelTimeout once it has run kWatchdogFactor times as long as the
  // longest launch this replay has seen finish, and at least
  // kWatchdogFloorMs; until one has finished there is no limit (the
  // session's request timeout still holds).
  float wait(CUevent start, CUevent stop);
  static constexpr double kWatchdogFactor = 20, kWatchdogFloorMs = 1000;
  // Counts a launch of `ms` milliseconds as finished for wait()'s limit: one
  // the session saw, in this runner or in one it replaced, so that a fresh
  // runner's first launch is bounded too.
  void expect(double ms) { longest_ms_ = std::max(longest_ms_, ms); }
  // upload + launch + wait + download.
  std::vector<std::string> run(Module &m, const std::vector<std::string> &inputs, const Shape &shape,
                               const std::string &params);
  // run() into buffers the replay keeps, valid until the next call: a
  // candidate's outputs, compared once, cost no fresh host memory.
  const std::vector<std::string> &run_scratch(Module &m, const std::vector<std::string> &inputs, const Shape &shape,
                                              const std::string &params);

  // Buffers computed once per replay and reused by later requests (the
  // reference's outputs, perturbed inputs): `make()`'s result under `key`.
  // Results are kept while those of every replay of the process fit in
  // memo_budget(), so memory stays bounded; later ones are made afresh.
  using Buffers = std::vector<std::string>;
  using SharedBuffers = std::shared_ptr<const Buffers>;
  SharedBuffers memo(const std::string &key, const std::function<Buffers()> &make);
  // Whether memo() keeps a result under `key`.
  bool memoized(const std::string &key) const { return memo_.count(key) != 0; }
  // The bytes memo() may keep in one process: a quarter of the host's
  // memory, at most 32 GiB.
  static uint64_t memo_budget();

  // The largest finite |element| of each buffer of `ref` (the tolerance's
  // scale), kept under `key` unless it is empty.
  std::vector<double> magnitudes(const std::string &key, const Buffers &ref);
  // Whether the captured launch changed buffer i (an output).
  bool written(size_t i) const { return written_[i]; }

  // A reference's run-to-run noise on the captured inputs, per buffer.
  struct Calibration {
    std::vector<double> noise;
    bool deterministic = true;
    size_t runs = 0;
  };
  // `make()`'s calibration under `key`, computed once per replay (it compares
  // every pair of reference runs: too costly to repeat for each candidate).
  const Calibration &calibration(const std::string &key, const std::function<Calibration()> &make);

private:
  Module load(const std::string &cubin);
  // Copies every buffer of `m` into `out`, reusing its strings' memory when
  // they already have the buffers' sizes.
  void download(const Module &m, std::vector<std::string> &out);
  void run_into(Module &m, const std::vector<std::string> &inputs, const Shape &shape, const std::string &params,
                std::vector<std::string> &out);
  BlobStore store_;
  std::string capture_; // the capture's id
  std::map<std::string, SharedBuffers> memo_;
  std::map<std::string, std::vector<double>> magnitudes_;
  uint64_t memo_bytes_ = 0; // what memo_ holds, counted in the process's total
  std::map<std::string, Calibration> calibrations_;
  Manifest m_;
  std::vector<std::string> before_, after_;
  std::vector<ElementType> types_;
  std::vector<bool> written_;
  std::vector<std::string> scratch_; // run_scratch()'s outputs
  std::vector<CUdeviceptr> alloc_;
  std::map<std::string, Module> modules_;
  uint64_t device_bytes_ = 0;
  CUevent start_ = nullptr, stop_ = nullptr; // run_into()'s, made on first use
  double longest_ms_ = 0;                    // the longest launch wait() saw finish
};

} // namespace kbcc::gpu::runtime
