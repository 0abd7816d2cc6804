// Scaling out `kbcc warm`: several GPU machines split the registry's kernels
// through a Redis stream with a consumer group. Each kernel is enqueued once
// (a set guards the XADD, atomically), read by one worker (XREADGROUP),
// acknowledged with its result (XACK + a "done" set, in one MULTI/EXEC), so it
// is optimized once. A worker keeps its claim fresh while it works (XCLAIM
// JUSTID heartbeat); a dead worker's claim goes idle and another worker takes
// it over (XAUTOCLAIM).
// Keys: kbcc:queue:<name> (stream), :enqueued, :done (sets), :failed (hash).
#pragma once

#include "support/expected.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kbcc::remote {

struct QueueOptions {
  std::string name = "warm";                   // queue name (e.g. "warm-sm_90")
  std::chrono::milliseconds claim_idle{60000}; // a claim idle this long is taken over
  std::chrono::milliseconds block{1000};       // wait for new work per XREADGROUP
  std::chrono::milliseconds timeout{5000};     // per Redis command (besides blocking reads)
};

// Optimizes one kernel (by registry hash); an Error marks it failed (it is
// not retried by other workers).
using OptimizeFn = std::function<Status(const std::string &kernel_hash)>;

struct QueueReport {
  uint64_t enqueued = 0;  // kernels this worker added to the queue
  uint64_t processed = 0; // kernels this worker optimized (success or failure)
  uint64_t failed = 0;
  uint64_t taken_over = 0; // claims of dead workers this worker took over
  uint64_t already_done = 0;
};

struct QueueStatus {
  uint64_t enqueued = 0, done = 0, failed = 0, pending = 0;
};

// Adds `kernels` to the queue (those already enqueued once are skipped) and
// works as `worker_id` until every enqueued kernel is done. `url` is
// redis://host[:port][/db].
Expected<QueueReport> run_warm_queue(const std::string &url, const std::string &worker_id,
                                     const std::vector<std::string> &kernels, const OptimizeFn &optimize,
                                     const QueueOptions &options = {});
// A worker id unique to this process: "<hostname>-<pid>".
std::string default_worker_id();

// Counts of the queue `name`.
Expected<QueueStatus> queue_status(const std::string &url, const std::string &name = "warm");

} // namespace kbcc::remote
