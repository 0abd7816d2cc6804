// The GPU side of the loop behind one interface, so the loop can be tested
// with measurements supplied by a test and run for real with gpu/session.h.
#pragma once
#include "agent/types.h"
#include "support/expected.h"

namespace kbcc::agent {

class Evaluator {
public:
  virtual ~Evaluator() = default;
  // Replays, times and profiles the original kernel. Error = the kernel
  // cannot be measured at all (no usable capture, no GPU).
  virtual Expected<Measurement> baseline(const KernelTask &task) = 0;
  // Compiles every candidate for task.arch (the compiles may run in
  // parallel), validates each on every capture (through its launch mapping)
  // and on fuzzed inputs, and times it; no profiler, no sanitizer. Compile
  // and validation failures are reported in the Evaluation; an Error entry
  // is an infrastructure failure.
  virtual std::vector<Expected<Evaluation>> evaluate(const KernelTask &task,
                                                     const std::vector<Candidate> &candidates) = 0;
  // The profile of a candidate (the loop asks for its new positions only);
  // empty when no profiler is available.
  virtual Metrics profile(const KernelTask &task, const Candidate &candidate) = 0;
  // compute-sanitizer memcheck of a candidate about to be stored: true when
  // clean; the report says what was found.
  virtual Expected<bool> sanitize(const KernelTask &task, const Candidate &candidate, std::string &report) = 0;
};

} // namespace kbcc::agent
