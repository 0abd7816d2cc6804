// The GPU side of the loop behind one interface, so the loop can be tested
// with measurements supplied by a test and run for real with gpu/harness.h.
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
  // Compiles `candidate` for task.arch, validates it on every capture plus
  // fuzzed inputs, times and profiles it. Compile and validation failures are
  // reported in the Evaluation; Error only for infrastructure failures.
  virtual Expected<Evaluation> evaluate(const KernelTask &task, const Candidate &candidate) = 0;
};

} // namespace kbcc::agent
